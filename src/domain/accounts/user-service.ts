import type { Clock } from '../common/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { parseInput } from '../common/validation.js';
import { toUserView } from './account-presenter.js';
import {
  type CreateUserInput,
  createUserInput,
  emailSchema,
  type UpdateUserInput,
  type UserView,
  updateUserInput,
} from './account-schemas.js';
import type { UserRecord, UserStore } from './account-store.js';
import { hashPassword, passwordProblem } from './password.js';

export interface UserServiceDeps {
  users: UserStore;
  clock: Clock;
  ids: IdGenerator;
  hash?: (password: string) => Promise<string>;
}

export function createUserService({ users, clock, ids, hash = hashPassword }: UserServiceDeps) {
  async function requireByEmail(email: string): Promise<UserRecord> {
    const normalised = parseInput(emailSchema, email);
    const user = await users.findByEmail(normalised);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  const service = {
    /** Creates a user; the very first user of an installation becomes the admin. */
    async create(input: CreateUserInput): Promise<UserView> {
      const data = parseInput(createUserInput, input);
      if (data.password !== undefined) {
        const problem = passwordProblem(data.password);
        if (problem) throw new ValidationError({ password: problem });
      }
      if (await users.findByEmail(data.email)) {
        throw new ConflictError(`A user with e-mail ${data.email} already exists`);
      }
      const now = clock.now().toISOString();
      const record: UserRecord = {
        id: ids('usr'),
        email: data.email,
        passwordHash: data.password === undefined ? null : await hash(data.password),
        tier: data.tier,
        rateLimit: data.rateLimit ?? null,
        isAdmin: (await users.count()) === 0,
        createdAt: now,
        updatedAt: now,
      };
      await users.insert(record);
      return toUserView(record);
    },

    async update(email: string, input: UpdateUserInput): Promise<UserView> {
      const user = await requireByEmail(email);
      const patch = parseInput(updateUserInput, input);
      const updatedAt = clock.now().toISOString();
      const changes = {
        ...(patch.tier !== undefined && { tier: patch.tier }),
        ...(patch.rateLimit !== undefined && { rateLimit: patch.rateLimit }),
      };
      await users.update(user.id, changes, updatedAt);
      return toUserView({ ...user, ...changes, updatedAt });
    },

    requireByEmail,

    list: async (): Promise<UserView[]> => (await users.list()).map(toUserView),

    /** Admin change of a user's tier or limit, by id. */
    async updateById(id: string, input: UpdateUserInput): Promise<UserView> {
      const user = isId('usr', id) ? await users.findById(id) : undefined;
      if (!user) throw new NotFoundError('User');
      return service.update(user.email, input);
    },
  };
  return service;
}

export type UserService = ReturnType<typeof createUserService>;
