import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../actor.js';
import type { Clock } from '../clock.js';
import { ForbiddenError, RateLimitedError, UnauthorizedError, ValidationError } from '../errors.js';
import { currentWindow, type WindowCounter } from '../limits/rate-limit.js';
import { parseInput } from '../validation.js';
import { credentials, passwordChange, signupInput, type UserView } from './account-schemas.js';
import type { UserRecord, UserStore } from './account-store.js';
import { INTEGRATIONS, type Integration } from './integrations.js';
import { hashPassword, passwordProblem, verifyPassword } from './password.js';
import type { SessionStore } from './session-store.js';
import { toUserView, type UserService } from './user-service.js';

export const SIGNUP_MODES = ['open', 'invite', 'closed'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

/** Failed logins allowed per hour: per account (slows guessing one password) and per address. */
export const LOGIN_LIMITS = { account: 10, address: 50 };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

// Verified against when the e-mail is unknown, so both failures take the same time.
const DUMMY_HASH = hashPassword('not-a-real-password-just-timing');

export interface SessionServiceDeps {
  users: UserStore;
  userService: UserService;
  sessions: SessionStore;
  counters: WindowCounter;
  clock: Clock;
  signupMode: SignupMode;
  ttlDays: number;
}

export interface SignedIn {
  user: UserView;
  /** The cookie value; only its SHA-256 is stored. */
  token: string;
}

/** Dashboard accounts: sign-up, login (throttled), sessions, password change, invites. */
export function createSessionService(deps: SessionServiceDeps) {
  const { users, userService, sessions, counters, clock, signupMode, ttlDays } = deps;
  const ttlMs = ttlDays * 86_400_000;

  async function open(user: UserRecord): Promise<SignedIn> {
    const token = newToken();
    const now = clock.now();
    await sessions.insert({
      tokenHash: sha256(token),
      userId: user.id,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
    });
    return { user: toUserView(user), token };
  }

  return {
    async config() {
      return { signup_mode: signupMode, has_users: (await users.count()) > 0 };
    },

    /** The very first user may always sign up (and becomes the admin); later ones per the mode. */
    async signup(input: unknown): Promise<SignedIn> {
      const data = parseInput(signupInput, input);
      const problem = passwordProblem(data.password);
      if (problem) throw new ValidationError({ password: problem });
      const first = (await users.count()) === 0;
      if (!first && signupMode === 'closed') throw new ForbiddenError('Sign-up is closed on this server');
      if (!first && signupMode === 'invite' && !data.invite_code) {
        throw new ValidationError({ invite_code: 'An invite code is required to sign up here' });
      }
      const created = await userService.create({ email: data.email, password: data.password });
      if (!first && signupMode === 'invite') {
        const ok = await sessions.redeemInvite(sha256(data.invite_code ?? ''), created.id, clock.now().toISOString());
        if (!ok) {
          await users.delete(created.id);
          throw new ValidationError({ invite_code: 'This invite code is not valid or was already used' });
        }
      }
      const record = await users.findById(created.id);
      if (!record) throw new Error('user vanished after sign-up');
      return open(record);
    },

    async login(input: unknown, clientIp: string): Promise<SignedIn> {
      const data = parseInput(credentials, input);
      const window = currentWindow(clock.now());
      const accountKey = `login:account:${data.email}`;
      const addressKey = `login:address:${clientIp}`;
      const [accountFailures, addressFailures] = await Promise.all([
        counters.peek(accountKey, window),
        counters.peek(addressKey, window),
      ]);
      if (accountFailures >= LOGIN_LIMITS.account || addressFailures >= LOGIN_LIMITS.address) {
        throw new RateLimitedError(window.retryAfterSeconds, 'Too many failed logins; try again later');
      }
      const user = await users.findByEmail(data.email);
      const valid = await verifyPassword(data.password, user?.passwordHash ?? (await DUMMY_HASH));
      if (!user?.passwordHash || !valid) {
        await Promise.all([counters.increment(accountKey, window), counters.increment(addressKey, window)]);
        throw new UnauthorizedError('Wrong e-mail or password');
      }
      // A new token on every login: a session id fixed before login is never reused after it.
      return open(user);
    },

    /** The signed-in user for a cookie token, or undefined. Extends the session when half used. */
    async authenticate(
      token: string | undefined,
    ): Promise<{ user: UserRecord; actor: Actor; tokenHash: string } | undefined> {
      if (!token || token.length > 200) return undefined;
      const tokenHash = sha256(token);
      const now = clock.now();
      const session = await sessions.findValid(tokenHash, now.toISOString());
      if (!session) return undefined;
      const user = await users.findById(session.userId);
      if (!user) return undefined;
      if (Date.parse(session.expiresAt) - now.getTime() < ttlMs / 2) {
        await sessions.extend(tokenHash, new Date(now.getTime() + ttlMs).toISOString());
      }
      const actor: Actor = { userId: user.id, integrations: new Set<Integration>(INTEGRATIONS), via: 'session' };
      return { user, actor, tokenHash };
    },

    logout: (tokenHash: string) => sessions.delete(tokenHash),

    /** Requires the current password; ends every other session of the user. */
    async changePassword(userId: string, tokenHash: string, input: unknown): Promise<void> {
      const data = parseInput(passwordChange, input);
      const user = await users.findById(userId);
      if (!user?.passwordHash || !(await verifyPassword(data.current_password, user.passwordHash))) {
        throw new ValidationError({ current_password: 'The current password is not right' });
      }
      const problem = passwordProblem(data.new_password);
      if (problem) throw new ValidationError({ new_password: problem });
      await users.update(userId, { passwordHash: await hashPassword(data.new_password) }, clock.now().toISOString());
      await sessions.deleteAllForUser(userId, tokenHash);
    },

    async createInvite(admin: UserRecord): Promise<string> {
      if (!admin.isAdmin) throw new ForbiddenError('Only admins can create invites');
      const code = newToken();
      await sessions.insertInvite(sha256(code), admin.id, clock.now().toISOString());
      return code;
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
