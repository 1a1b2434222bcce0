import type { Actor } from '../common/actor.js';
import { type Change, changeBy } from '../common/audit.js';
import type { Clock } from '../common/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { parseInput } from '../common/validation.js';
import { type AccountActor, isOperator } from './account-actor.js';
import { toKeyView } from './account-presenter.js';
import {
  type ApiKeyView,
  type CreateKeyInput,
  createKeyInput,
  type ImportLegacyKeyInput,
  importLegacyKeyInput,
  type Me,
} from './account-schemas.js';
import type { ApiKeyRecord, ApiKeyStore, UserStore } from './account-store.js';
import { displayPrefix, generateApiKey, hashApiKey, isLegacyKey } from './api-key.js';
import { INTEGRATIONS } from './integrations.js';

export interface KeyServiceDeps {
  keys: ApiKeyStore;
  /** For `whoAmI`; optional so that key-only callers need not wire it. */
  users?: UserStore;
  clock: Clock;
  ids: IdGenerator;
  /** Usage not yet flushed to the store, so lists are current between batches. */
  pendingUsage?: (keyId: string) => { count: number; lastUsedAt: string } | undefined;
}

export function createKeyService({ keys, users, clock, ids, pendingUsage }: KeyServiceDeps) {
  function withPending(record: ApiKeyRecord): ApiKeyRecord {
    const pending = pendingUsage?.(record.id);
    if (!pending) return record;
    return {
      ...record,
      requestCount: record.requestCount + pending.count,
      lastUsedAt: record.lastUsedAt && record.lastUsedAt > pending.lastUsedAt ? record.lastUsedAt : pending.lastUsedAt,
    };
  }

  return {
    /** The account and the key making the request (never the key's secret). */
    async whoAmI(actor: Actor): Promise<Me> {
      const [user, key] = await Promise.all([
        users?.findById(actor.userId),
        actor.keyId === undefined ? undefined : keys.findById(actor.userId, actor.keyId),
      ]);
      if (!user) throw new NotFoundError('User');
      return {
        user: { id: user.id, email: user.email, tier: user.tier },
        key: key
          ? {
              id: key.id,
              name: key.name,
              prefix: key.prefix,
              integrations: key.integrations,
              created_at: key.createdAt,
            }
          : null,
      };
    },

    /** Mints a key. The secret is in the result exactly once; only its SHA-256 is stored. */
    async create(actor: Actor, input: CreateKeyInput): Promise<ApiKeyView & { key: string }> {
      const data = parseInput(createKeyInput, input);
      const now = clock.now();
      const key = generateApiKey();
      const record: ApiKeyRecord = {
        id: ids('key'),
        userId: actor.userId,
        name: data.name,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key),
        integrations: data.integrations,
        legacy: false,
        createdAt: now.toISOString(),
        lastUsedAt: null,
        requestCount: 0,
        revokedAt: null,
      };
      await keys.insert(record, changeBy(actor, now));
      return { ...toKeyView(record), key };
    },

    /** Imports a key from the old system: stored hashed, marked legacy, holding all four integrations. */
    async importLegacy(actor: Actor, input: ImportLegacyKeyInput): Promise<ApiKeyView> {
      const data = parseInput(importLegacyKeyInput, input);
      const now = clock.now();
      const key = data.key.trim();
      if (!isLegacyKey(key)) {
        throw new ValidationError({
          key: 'Not a legacy key: expected aait_, acli_, amcp_, amkt_ or ak_ followed by 16–128 letters, digits, _ or -',
        });
      }
      const record: ApiKeyRecord = {
        id: ids('key'),
        userId: actor.userId,
        name: data.name ?? `Legacy key ${displayPrefix(key)}`,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key),
        integrations: [...INTEGRATIONS],
        legacy: true,
        createdAt: now.toISOString(),
        lastUsedAt: null,
        requestCount: 0,
        revokedAt: null,
      };
      try {
        await keys.insert(record, changeBy(actor, now));
      } catch (error) {
        if (error instanceof ConflictError) throw new ConflictError('This key has already been imported');
        throw error;
      }
      return toKeyView(record);
    },

    async list(actor: Actor): Promise<ApiKeyView[]> {
      return (await keys.listByUser(actor.userId)).map((record) => toKeyView(withPending(record)));
    },

    /** Revokes one of the actor's keys (the operator: any key); the next request with it is refused. */
    async revoke(actor: AccountActor, id: string): Promise<ApiKeyView> {
      return revoke(isOperator(actor) ? null : actor.userId, id, changeBy(actor, clock.now()));
    },

    async delete(actor: Actor, id: string): Promise<void> {
      if (!isId('key', id) || !(await keys.delete(actor.userId, id, changeBy(actor, clock.now())))) {
        throw new NotFoundError('API key');
      }
    },
  };

  async function revoke(userId: string | null, id: string, change: Change): Promise<ApiKeyView> {
    // Not an id: no key, without a query (PostgreSQL cannot even compare text holding U+0000).
    if (!isId('key', id) || !(await keys.revoke(userId, id, change))) {
      throw new NotFoundError('API key');
    }
    const record = await keys.findById(userId, id);
    if (!record) throw new NotFoundError('API key');
    return toKeyView(withPending(record));
  }
}

export type KeyService = ReturnType<typeof createKeyService>;
