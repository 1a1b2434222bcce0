import { type Change, changeBy } from '../common/audit.js';
import type { Clock } from '../common/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { parseInput } from '../common/validation.js';
import { type AccountActor, requireAdmin } from './account-actor.js';
import { toUserView } from './account-presenter.js';
import {
  adminUserPatch,
  type CreateUserInput,
  createUserInput,
  emailSchema,
  type UpdateUserInput,
  type UserView,
  updateUserInput,
} from './account-schemas.js';
import type { UserRecord, UserStore } from './account-store.js';
import { type PasswordHasher, passwordProblem } from './password.js';

export interface UserServiceDeps {
  users: UserStore;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
}

/**
 * Creates a user; the very first user of an installation becomes the admin. No actor: both the admin's
 * `create` and the anonymous sign-up (which applies its own rules first) come here, each with its `change`
 * (whose time is the account's creation time), recorded as the account's `created` in its own trail.
 */
export async function createUser(deps: UserServiceDeps, input: CreateUserInput, change: Change): Promise<UserView> {
  const { users, ids, passwords } = deps;
  const data = parseInput(createUserInput, input);
  if (data.password !== undefined) {
    const problem = passwordProblem(data.password);
    if (problem) throw new ValidationError({ password: problem });
  }
  if (await users.findByEmail(data.email)) {
    throw new ConflictError(`A user with e-mail ${data.email} already exists`);
  }
  const now = change.at;
  const record: UserRecord = {
    id: ids('usr'),
    email: data.email,
    passwordHash: data.password === undefined ? null : await passwords.hash(data.password),
    tier: data.tier,
    rateLimit: data.rateLimit ?? null,
    isAdmin: (await users.count()) === 0,
    createdAt: now,
    updatedAt: now,
  };
  await users.insert(record, change);
  return toUserView(record);
}

async function findByEmail(users: UserStore, email: string): Promise<UserRecord> {
  const normalised = parseInput(emailSchema, email);
  const user = await users.findByEmail(normalised);
  if (!user) throw new NotFoundError('User');
  return user;
}

async function updateUser(
  deps: UserServiceDeps,
  actor: AccountActor,
  user: UserRecord,
  input: UpdateUserInput,
): Promise<UserView> {
  const patch = parseInput(updateUserInput, input);
  const change = changeBy(actor, deps.clock.now());
  const updatedAt = change.at;
  const changes = {
    ...(patch.tier !== undefined && { tier: patch.tier }),
    ...(patch.rateLimit !== undefined && { rateLimit: patch.rateLimit }),
  };
  await deps.users.update(user, changes, change);
  return toUserView({ ...user, ...changes, updatedAt });
}

/** User management: every operation is an admin's (a dashboard admin or the operator). */
export function createUserService(deps: UserServiceDeps) {
  const { users } = deps;
  return {
    async create(actor: AccountActor, input: CreateUserInput): Promise<UserView> {
      requireAdmin(actor);
      return createUser(deps, input, changeBy(actor, deps.clock.now()));
    },

    /** A user's tier or limit, by e-mail (the CLI's names: camelCase). */
    async update(actor: AccountActor, email: string, input: UpdateUserInput): Promise<UserView> {
      requireAdmin(actor);
      return updateUser(deps, actor, await findByEmail(users, email), input);
    },

    async requireByEmail(actor: AccountActor, email: string): Promise<UserRecord> {
      requireAdmin(actor);
      return findByEmail(users, email);
    },

    async list(actor: AccountActor): Promise<UserView[]> {
      requireAdmin(actor);
      return (await users.list()).map(toUserView);
    },

    /** A user's tier or limit, by id, as the dashboard sends it (snake_case, so `details` names its fields). */
    async updateById(actor: AccountActor, id: string, input: unknown): Promise<UserView> {
      requireAdmin(actor);
      const { tier, rate_limit } = parseInput(adminUserPatch, input ?? {});
      const user = isId('usr', id) ? await users.findById(id) : undefined;
      if (!user) throw new NotFoundError('User');
      return updateUser(deps, actor, user, {
        ...(tier !== undefined && { tier }),
        ...(rate_limit !== undefined && { rateLimit: rate_limit }),
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
