import { randomBytes } from 'node:crypto';
import type { SignupMode } from '../../contract/index.js';
import type { Actor } from '../common/actor.js';
import { type Change, changeBy } from '../common/audit.js';
import type { Clock } from '../common/clock.js';
import { sha256Hex } from '../common/digest.js';
import { ForbiddenError, RateLimitedError, UnauthorizedError, ValidationError } from '../common/errors.js';
import type { IdGenerator } from '../common/ids.js';
import { parseInput } from '../common/validation.js';
import { currentWindow, type RateStatus, type WindowCounter } from '../limits/rate-limit.js';
import { UserRateLimitedError } from './access-gate.js';
import { requireAdmin } from './account-actor.js';
import { toUserView } from './account-presenter.js';
import { credentials, passwordChange, signupInput, type UserView } from './account-schemas.js';
import type { UserRecord, UserStore } from './account-store.js';
import { INTEGRATIONS, type Integration } from './integrations.js';
import { type PasswordHasher, passwordProblem } from './password.js';
import type { SessionStore } from './session-store.js';
import { createUser } from './user-service.js';

export { SIGNUP_MODES, type SignupMode } from '../../contract/index.js';

/** Failed logins allowed per hour: per account (slows guessing one password) and per address. */
export const LOGIN_LIMITS = { account: 10, address: 50 };

const newToken = () => randomBytes(32).toString('base64url');
const invalidInvite = () => new ValidationError({ invite_code: 'This invite code is not valid or was already used' });

export interface SessionServiceDeps {
  users: UserStore;
  sessions: SessionStore;
  counters: WindowCounter;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
  signupMode: SignupMode;
  ttlDays: number;
  /** Sign-up attempts allowed per client address per hour (SIGNUP_ADDRESS_LIMIT). */
  signupAddressLimit: number;
  /** Dashboard API requests allowed per signed-in user per hour (DASHBOARD_RATE_LIMIT). */
  dashboardRateLimit: number;
}

export interface Authenticated {
  user: UserRecord;
  actor: Actor;
  tokenHash: string;
}

export interface SignedIn {
  user: UserView;
  /** The cookie value; only its SHA-256 is stored. */
  token: string;
}

/** What the operations share: the deps, plus what the factory derives from them once. */
interface SessionDeps extends SessionServiceDeps {
  ttlMs: number;
  /** Verified against when the e-mail is unknown, so both failures take the same time. */
  dummyHash: () => Promise<string>;
}

async function openSession({ sessions, clock, ttlMs }: SessionDeps, user: UserRecord): Promise<SignedIn> {
  const token = newToken();
  const now = clock.now();
  await sessions.insert({
    tokenHash: sha256Hex(token),
    userId: user.id,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
  });
  return { user: toUserView(user), token };
}

/** The signed-in user for a cookie token, or undefined. Extends the session when half used. */
async function authenticate(deps: SessionDeps, token: string | undefined): Promise<Authenticated | undefined> {
  const { users, sessions, clock, ttlMs } = deps;
  if (!token || token.length > 200) return undefined;
  const tokenHash = sha256Hex(token);
  const now = clock.now();
  const session = await sessions.findValid(tokenHash, now.toISOString());
  if (!session) return undefined;
  const user = await users.findById(session.userId);
  if (!user) return undefined;
  if (Date.parse(session.expiresAt) - now.getTime() < ttlMs / 2) {
    await sessions.extend(tokenHash, new Date(now.getTime() + ttlMs).toISOString());
  }
  const actor: Actor = {
    userId: user.id,
    integrations: new Set<Integration>(INTEGRATIONS),
    via: 'session',
    role: user.isAdmin ? 'admin' : 'member',
  };
  return { user, actor, tokenHash };
}

/**
 * The very first user may always sign up (and becomes the admin); later ones per the mode. Every
 * attempt that passes the cheap checks takes one unit of the address's sign-up budget before any
 * store or hashing work; in invite mode the code is checked before anything is created.
 */
async function signup(deps: SessionDeps, input: unknown, clientIp: string): Promise<SignedIn> {
  const { users, sessions, counters, clock, signupMode, signupAddressLimit } = deps;
  const data = parseInput(signupInput, input);
  const window = currentWindow(clock.now());
  const { taken } = await counters.tryTake(`signup:address:${clientIp}`, signupAddressLimit, window);
  if (!taken) {
    throw new RateLimitedError(window.retryAfterSeconds, 'Too many sign-ups from this address; try again later');
  }
  const first = (await users.count()) === 0;
  if (!first && signupMode === 'closed') throw new ForbiddenError('Sign-up is closed on this server');
  const inviteHash = !first && signupMode === 'invite' ? sha256Hex(data.invite_code ?? '') : undefined;
  if (inviteHash !== undefined) {
    if (!data.invite_code) {
      throw new ValidationError({ invite_code: 'An invite code is required to sign up here' });
    }
    if (!(await sessions.inviteUsable(inviteHash))) throw invalidInvite();
  }
  // No actor yet: the new account's own change, from the dashboard, under no key.
  const change: Change = {
    surface: 'dashboard',
    keyId: null,
    integration: null,
    clientName: null,
    clientVersion: null,
    at: clock.now().toISOString(),
  };
  const created = await createUser(deps, { email: data.email, password: data.password }, change);
  // Two sign-ups racing for one code both pass the check above; the redemption decides, and the
  // loser's account is removed again (its trail then says created, then deleted).
  if (inviteHash !== undefined && !(await sessions.redeemInvite(inviteHash, created.id, clock.now().toISOString()))) {
    await users.delete(created, { ...change, at: clock.now().toISOString() });
    throw invalidInvite();
  }
  const record = await users.findById(created.id);
  if (!record) throw new Error('user vanished after sign-up');
  return openSession(deps, record);
}

/**
 * Each attempt first reserves one unit of both failure budgets (the account's and the address's) in
 * one atomic take, and only then checks the password: however many attempts run in parallel, no more
 * than the limit ever reach the check. A successful login gives its reservation back (the budgets count
 * failures, so a user who signs in often never locks themselves out); a failed one keeps it.
 */
async function login(deps: SessionDeps, input: unknown, clientIp: string): Promise<SignedIn> {
  const { users, counters, clock, passwords } = deps;
  const data = parseInput(credentials, input);
  const window = currentWindow(clock.now());
  const accountKey = `login:account:${data.email}`;
  const addressKey = `login:address:${clientIp}`;
  const reservation = await counters.tryTakeAll(
    [
      { key: accountKey, limit: LOGIN_LIMITS.account },
      { key: addressKey, limit: LOGIN_LIMITS.address },
    ],
    window,
  );
  if (!reservation.taken) {
    throw new RateLimitedError(window.retryAfterSeconds, 'Too many failed logins; try again later');
  }
  let wrong = false;
  try {
    const user = await users.findByEmail(data.email);
    const valid = await passwords.verify(data.password, user?.passwordHash ?? (await deps.dummyHash()));
    if (!user?.passwordHash || !valid) {
      wrong = true;
      throw new UnauthorizedError('Wrong e-mail or password');
    }
    // A new token on every login: a session id fixed before login is never reused after it.
    return await openSession(deps, user);
  } finally {
    // Only a wrong password keeps its unit; a success (or a storage failure) is not a failed guess.
    if (!wrong) await Promise.all([counters.release(accountKey, window), counters.release(addressKey, window)]);
  }
}

/**
 * A dashboard API request: the session's user, counted against that user's own hourly dashboard budget
 * (separate from the API keys' limit, so a tool that used up the API limit does not lock its owner out of
 * the dashboard, and the reverse). Over the budget: a 429 carrying the rate headers.
 */
async function admit(
  deps: SessionDeps,
  token: string | undefined,
): Promise<(Authenticated & { rate: RateStatus }) | undefined> {
  const { counters, clock, dashboardRateLimit } = deps;
  const found = await authenticate(deps, token);
  if (!found) return undefined;
  const window = currentWindow(clock.now());
  const { taken, count } = await counters.tryTake(`dashboard:${found.user.id}`, dashboardRateLimit, window);
  const rate: RateStatus = {
    limit: dashboardRateLimit,
    remaining: Math.max(0, dashboardRateLimit - count),
    resetEpochSeconds: window.resetEpochSeconds,
  };
  if (!taken) throw new UserRateLimitedError(window.retryAfterSeconds, rate);
  return { ...found, rate };
}

/** Requires the current password; ends every other session of the user (all but `keepTokenHash`). */
async function changePassword(deps: SessionDeps, actor: Actor, input: unknown, keepTokenHash: string): Promise<void> {
  const { users, sessions, clock, passwords } = deps;
  const data = parseInput(passwordChange, input);
  const user = await users.findById(actor.userId);
  // Both fields are checked before answering, so one answer names every problem.
  const problem = passwordProblem(data.new_password);
  const currentRight = Boolean(
    user?.passwordHash && (await passwords.verify(data.current_password, user.passwordHash)),
  );
  if (!user || !currentRight || problem) {
    throw new ValidationError({
      ...(!currentRight && { current_password: 'The current password is not right' }),
      ...(problem && { new_password: problem }),
    });
  }
  // The trail records that the account changed, never anything of the password (no hashes).
  await users.update(user, { passwordHash: await passwords.hash(data.new_password) }, changeBy(actor, clock.now()));
  await sessions.deleteAllForUser(actor.userId, keepTokenHash);
}

/** A one-time sign-up code, from a signed-in admin. */
async function createInvite({ sessions, clock }: SessionDeps, actor: Actor): Promise<string> {
  requireAdmin(actor);
  const code = newToken();
  await sessions.insertInvite(sha256Hex(code), actor.userId, clock.now().toISOString());
  return code;
}

/** Dashboard accounts: sign-up, login (throttled), sessions, password change, invites. */
export function createSessionService(serviceDeps: SessionServiceDeps) {
  // Made on the first login that needs it: a CLI command that never logs anyone in never pays for it.
  let dummyHash: Promise<string> | undefined;
  const deps: SessionDeps = {
    ...serviceDeps,
    ttlMs: serviceDeps.ttlDays * 86_400_000,
    dummyHash: () => {
      dummyHash ??= serviceDeps.passwords.hash('not-a-real-password-just-timing');
      return dummyHash;
    },
  };
  const { users, sessions, signupMode } = deps;
  return {
    config: async () => ({ signup_mode: signupMode, has_users: (await users.count()) > 0 }),
    signup: (input: unknown, clientIp: string) => signup(deps, input, clientIp),
    login: (input: unknown, clientIp: string) => login(deps, input, clientIp),
    authenticate: (token: string | undefined) => authenticate(deps, token),
    admit: (token: string | undefined) => admit(deps, token),
    logout: (tokenHash: string) => sessions.delete(tokenHash),
    changePassword: (actor: Actor, input: unknown, keepTokenHash: string) =>
      changePassword(deps, actor, input, keepTokenHash),
    createInvite: (actor: Actor) => createInvite(deps, actor),
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
