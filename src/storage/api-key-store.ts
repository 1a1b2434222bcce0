import { type Kysely, type Selectable, sql } from 'kysely';
import type { ApiKeyRecord, ApiKeyStore, KeyPrincipal } from '../domain/accounts/account-store.js';
import type { Integration } from '../domain/accounts/integrations.js';
import type { Change } from '../domain/common/audit.js';
import { batchPerTurn } from '../domain/common/turn-batch.js';
import type { Tier } from '../domain/limits/rate-limit.js';
import { appendAudit, auditEntry } from './audit-store.js';
import { readBool, readCount, readJson, writeBool, writeJson } from './codec.js';
import { writeOrConflict } from './conflict.js';
import type { SqlDialect } from './dialects/sql-dialect.js';
import { precompile } from './precompiled.js';
import type { ApiKeysTable, Schema } from './schema.js';

const toRecord = (row: Selectable<ApiKeysTable>): ApiKeyRecord => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  prefix: row.prefix,
  keyHash: row.key_hash,
  integrations: readJson<Integration[]>(row.integrations),
  legacy: readBool(row.legacy),
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  requestCount: readCount(row.request_count),
  revokedAt: row.revoked_at,
});

/** A key's audit entry: no content, so no hashes; the name is its handle. */
const keyEntry = (
  change: Change,
  key: { id: string; userId: string; name: string },
  action: 'created' | 'revoked' | 'deleted',
) =>
  auditEntry(change, key.userId, {
    objectType: 'api_key',
    objectId: key.id,
    objectHandle: key.name,
    action,
    hashBefore: null,
    hashAfter: null,
  });

export async function insertApiKey(
  db: Kysely<Schema>,
  dialect: SqlDialect,
  key: ApiKeyRecord,
  change: Change,
): Promise<void> {
  await writeOrConflict(
    dialect,
    () =>
      db.transaction().execute(async (trx) => {
        await trx
          .insertInto('api_keys')
          .values({
            id: key.id,
            user_id: key.userId,
            name: key.name,
            prefix: key.prefix,
            key_hash: key.keyHash,
            integrations: writeJson(key.integrations),
            legacy: writeBool(key.legacy),
            created_at: key.createdAt,
            last_used_at: key.lastUsedAt,
            request_count: key.requestCount,
            revoked_at: key.revokedAt,
          })
          .execute();
        await appendAudit(trx, keyEntry(change, key, 'created'));
      }),
    'This API key already exists',
  );
}

const PRINCIPAL_COLUMNS = [
  'api_keys.key_hash',
  'api_keys.id as key_id',
  'api_keys.user_id',
  'api_keys.integrations',
  'api_keys.revoked_at',
  'users.tier',
  'users.rate_limit',
  'users.prompts_stamp',
] as const;

const principals = (db: Kysely<Schema>) =>
  db.selectFrom('api_keys').innerJoin('users', 'users.id', 'api_keys.user_id').select(PRINCIPAL_COLUMNS);

/** The key and its user's limits by the key's hash (the lookup of every authenticated request). */
const principalByHash = (db: Kysely<Schema>) =>
  precompile(db, (keyHash: string) => principals(db).where('api_keys.key_hash', '=', keyHash), 1);

/** The same for several hashes at once (PostgreSQL: `key_hash = any($1)`, one prepared statement). */
const principalsByHashes = (db: Kysely<Schema>) =>
  precompile(
    db,
    (keyHashes: readonly string[]) => principals(db).where('api_keys.key_hash', '=', sql<string>`any(${keyHashes})`),
    1,
  );

type PrincipalRow = Awaited<ReturnType<ReturnType<typeof principalByHash>>>[number];

const toPrincipal = (row: PrincipalRow): KeyPrincipal => ({
  keyId: row.key_id,
  userId: row.user_id,
  integrations: readJson<Integration[]>(row.integrations),
  revoked: row.revoked_at !== null,
  tier: row.tier as Tier,
  rateLimit: row.rate_limit,
  promptsStamp: readCount(row.prompts_stamp),
});

/** Two lookup queries at most at once: more waiting requests per query under load (turn-batch.ts). */
const BATCHES_IN_FLIGHT = { maxInFlight: 2 };

/**
 * The hot path of every request: one lookup through the unique index on key_hash, compiled once. Where
 * each query is a round trip (PostgreSQL), the lookups of one turn of the event loop are one query
 * (turn-batch.ts): a turn's requests, parsed together, then wait for one answer instead of one each.
 */
function principalLookup(
  db: Kysely<Schema>,
  dialect: SqlDialect,
): (keyHash: string) => Promise<KeyPrincipal | undefined> {
  if (!dialect.roundTrips) {
    const find = principalByHash(db);
    return async (keyHash) => {
      const [row] = await find(keyHash);
      return row && toPrincipal(row);
    };
  }
  const findAll = principalsByHashes(db);
  return batchPerTurn(async (keyHashes: string[]) => {
    const found = new Map<string, KeyPrincipal>();
    // A hash asked twice in the turn (two requests with one key) is asked for once.
    for (const row of await findAll([...new Set(keyHashes)])) found.set(row.key_hash, toPrincipal(row));
    return keyHashes.map((keyHash) => found.get(keyHash));
  }, BATCHES_IN_FLIGHT);
}

export async function listApiKeys(db: Kysely<Schema>, userId: string) {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toRecord);
}

export async function findApiKey(db: Kysely<Schema>, userId: string | null, id: string) {
  let query = db.selectFrom('api_keys').selectAll().where('id', '=', id);
  if (userId !== null) query = query.where('user_id', '=', userId);
  const row = await query.executeTakeFirst();
  return row && toRecord(row);
}

export async function revokeApiKey(db: Kysely<Schema>, userId: string | null, id: string, change: Change) {
  return db.transaction().execute(async (trx) => {
    let scoped = trx.selectFrom('api_keys').select(['id', 'user_id', 'name']).where('id', '=', id);
    if (userId !== null) scoped = scoped.where('user_id', '=', userId);
    const key = await scoped.executeTakeFirst();
    if (!key) return false;
    // Revoking twice keeps the first revocation time (and records only the first).
    const result = await trx
      .updateTable('api_keys')
      .set({ revoked_at: change.at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) {
      await appendAudit(trx, keyEntry(change, { id, userId: key.user_id, name: key.name }, 'revoked'));
    }
    return true;
  });
}

export async function deleteApiKey(db: Kysely<Schema>, userId: string, id: string, change: Change) {
  return db.transaction().execute(async (trx) => {
    const gone = await trx
      .deleteFrom('api_keys')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .returning('name')
      .executeTakeFirst();
    if (!gone) return false;
    await appendAudit(trx, keyEntry(change, { id, userId, name: gone.name }, 'deleted'));
    return true;
  });
}

export async function hourlyUsage(db: Kysely<Schema>, userId: string, since: string) {
  const rows = await db
    .selectFrom('usage_hourly')
    .innerJoin('api_keys', 'api_keys.id', 'usage_hourly.key_id')
    .select(['usage_hourly.hour_start', 'usage_hourly.key_id', 'api_keys.name', 'usage_hourly.request_count'])
    .where('usage_hourly.user_id', '=', userId)
    .where('usage_hourly.hour_start', '>=', since)
    .orderBy('usage_hourly.hour_start')
    .orderBy('usage_hourly.key_id')
    .execute();
  return rows.map((row) => ({
    hourStart: row.hour_start,
    keyId: row.key_id,
    keyName: row.name,
    count: readCount(row.request_count),
  }));
}

export async function addUsage(db: Kysely<Schema>, increments: Parameters<ApiKeyStore['addUsage']>[0]) {
  if (increments.length === 0) return;
  await db.transaction().execute(async (trx) => {
    // Keys deleted since their requests were counted have no figures left to keep.
    const ids = [...new Set(increments.map((inc) => inc.keyId))];
    const live = new Set(
      (await trx.selectFrom('api_keys').select('id').where('id', 'in', ids).execute()).map((row) => row.id),
    );
    for (const inc of increments) {
      if (!live.has(inc.keyId)) continue;
      await trx
        .updateTable('api_keys')
        .set((eb) => ({
          request_count: eb('request_count', '+', inc.count),
          last_used_at: eb
            .case()
            .when('last_used_at', 'is', null)
            .then(inc.lastUsedAt)
            .when('last_used_at', '<', inc.lastUsedAt)
            .then(inc.lastUsedAt)
            .else(eb.ref('last_used_at'))
            .end(),
        }))
        .where('id', '=', inc.keyId)
        .execute();
      await trx
        .insertInto('usage_hourly')
        .values({
          key_id: inc.keyId,
          user_id: inc.userId,
          hour_start: new Date(inc.hourStartMs).toISOString(),
          request_count: inc.count,
        })
        .onConflict((oc) =>
          oc.columns(['key_id', 'hour_start']).doUpdateSet((eb) => ({
            request_count: eb('usage_hourly.request_count', '+', eb.ref('excluded.request_count')),
          })),
        )
        .execute();
    }
  });
}

export function createApiKeyStore(db: Kysely<Schema>, dialect: SqlDialect): ApiKeyStore {
  const findPrincipal = principalLookup(db, dialect);
  return {
    insert: (key, change) => insertApiKey(db, dialect, key, change),
    findPrincipalByHash: findPrincipal,
    listByUser: (userId) => listApiKeys(db, userId),
    findById: (userId, id) => findApiKey(db, userId, id),
    revoke: (userId, id, change) => revokeApiKey(db, userId, id, change),
    delete: (userId, id, change) => deleteApiKey(db, userId, id, change),
    hourlyUsage: (userId, since) => hourlyUsage(db, userId, since),
    addUsage: (increments) => addUsage(db, increments),
  };
}
