import type { Change } from '../common/audit.js';
import type { Tier } from '../limits/rate-limit.js';
import type { Integration } from './integrations.js';

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string | null;
  tier: Tier;
  /** Per-user override of the tier's hourly limit; null = the tier default. */
  rateLimit: number | null;
  isAdmin: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  keyHash: string;
  integrations: Integration[];
  legacy: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  requestCount: number;
  revokedAt: string | null;
}

/** What authentication needs, in one indexed lookup: the key and its owner's limits. */
export interface KeyPrincipal {
  keyId: string;
  userId: string;
  integrations: Integration[];
  revoked: boolean;
  tier: Tier;
  rateLimit: number | null;
  /**
   * The user's prompt stamp, read with the key: it changes with every write of the user's prompts
   * (storage's `users.prompts_stamp`), so a prompt read under one value may be answered from memory for
   * another request that read the same value.
   */
  promptsStamp: number;
}

export interface UsageIncrement {
  keyId: string;
  userId: string;
  /** Epoch ms of the UTC hour the requests fell in. */
  hourStartMs: number;
  count: number;
  lastUsedAt: string;
}

/**
 * Every write appends its audit row (object `account`, id the user's id, handle the e-mail, in the account's
 * own trail; no hashes: an account has no content, and a password is never hashed into the trail) in the
 * same transaction as the change.
 */
export interface UserStore {
  /** Throws ConflictError when the e-mail is taken (and records nothing). */
  insert(user: UserRecord, change: Change): Promise<void>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  findById(id: string): Promise<UserRecord | undefined>;
  /** Audited as `updated` when the user exists (the change's time is the new `updatedAt`). */
  update(
    user: Pick<UserRecord, 'id' | 'email'>,
    patch: Partial<Pick<UserRecord, 'tier' | 'rateLimit' | 'passwordHash' | 'isAdmin'>>,
    change: Change,
  ): Promise<void>;
  count(): Promise<number>;
  list(): Promise<UserRecord[]>;
  /** Audited as `deleted` when the user existed. The trail's rows outlive the account (no foreign key). */
  delete(user: Pick<UserRecord, 'id' | 'email'>, change: Change): Promise<void>;
}

export interface ApiKeyStore {
  /** Throws ConflictError when the same key (hash) was stored before. */
  /** Every write appends its audit row (`api_key` created / revoked / deleted) in the same transaction. */
  insert(key: ApiKeyRecord, change: Change): Promise<void>;
  findPrincipalByHash(keyHash: string): Promise<KeyPrincipal | undefined>;
  listByUser(userId: string): Promise<ApiKeyRecord[]>;
  /** Scoped by user unless `userId` is null (operator commands). */
  findById(userId: string | null, id: string): Promise<ApiKeyRecord | undefined>;
  /** Sets `revoked_at` if not yet set; returns false when no such key exists. */
  revoke(userId: string | null, id: string, change: Change): Promise<boolean>;
  delete(userId: string, id: string, change: Change): Promise<boolean>;
  /** Adds batched usage: request counts, last use, and hourly history. */
  addUsage(increments: readonly UsageIncrement[]): Promise<void>;
  /** The user's hourly request counts per key since `since` (ISO), oldest first. */
  hourlyUsage(
    userId: string,
    since: string,
  ): Promise<Array<{ hourStart: string; keyId: string; keyName: string; count: number }>>;
}
