import type { Kysely, Selectable } from 'kysely';
import type { AuditAction, AuditObjectType, AuditSurface, Integration } from '../contract/index.js';
import type { AuditQuery, AuditStore } from '../domain/audit/audit-store.js';
import type { AuditEntry, AuditFact, AuditRecord, Change } from '../domain/common/audit.js';
import { ulid } from '../domain/common/ids.js';
import { readCount } from './codec.js';
import { precompiledInsert } from './precompiled.js';
import type { AuditEventsTable, Schema } from './schema.js';
import { enqueueWebhookEvents, subscriptionCheck } from './webhook-store.js';

/** The columns of an audit row (`auditRow`), in the order its precompiled insert takes them. */
export const AUDIT_COLUMNS = [
  'id',
  'user_id',
  'at',
  'object_type',
  'object_id',
  'object_handle',
  'action',
  'key_id',
  'integration',
  'surface',
  'client_name',
  'client_version',
  'hash_before',
  'hash_after',
] as const;

// Nullable fields left out by a caller are stored as NULL, as a builder's insert would leave them.
export const auditRow = (entry: AuditEntry) =>
  ({
    id: `evt_${ulid(Date.parse(entry.at) || 0)}`,
    user_id: entry.userId,
    at: entry.at,
    object_type: entry.objectType,
    object_id: entry.objectId,
    object_handle: entry.objectHandle ?? null,
    action: entry.action,
    key_id: entry.keyId ?? null,
    integration: entry.integration ?? null,
    surface: entry.surface,
    client_name: entry.clientName ?? null,
    client_version: entry.clientVersion ?? null,
    hash_before: entry.hashBefore ?? null,
    hash_after: entry.hashAfter ?? null,
  }) satisfies Record<(typeof AUDIT_COLUMNS)[number], unknown>;

/** A one-row audit append and its webhook subscription check, compiled once for `db` (precompiled.ts). */
export function auditWrites(db: Kysely<Schema>) {
  return { insertOne: precompiledInsert(db, 'audit_events', AUDIT_COLUMNS), subscribed: subscriptionCheck(db) };
}

export type AuditWrites = ReturnType<typeof auditWrites>;

/**
 * Appends audit rows inside the caller's write transaction (`trx`): one multi-row insert however many
 * objects the change touched, so a change and its record commit or roll back together. Every store write
 * that changes a user's object calls this; nothing else writes `audit_events`. A hot write passes its
 * precompiled statements (`auditWrites`), used when the change is one object.
 */
export async function appendAudit(
  trx: Kysely<Schema>,
  entries: AuditEntry | readonly AuditEntry[],
  precompiled?: AuditWrites,
): Promise<void> {
  const list = Array.isArray(entries) ? entries : [entries as AuditEntry];
  const rows = list.map(auditRow);
  const [only] = rows;
  if (precompiled && only !== undefined && rows.length === 1) await precompiled.insertOne(trx, only);
  else {
    // Bounded per statement: PostgreSQL takes at most 65,535 parameters (15 a row).
    for (let start = 0; start < rows.length; start += 1000) {
      await trx
        .insertInto('audit_events')
        .values(rows.slice(start, start + 1000))
        .execute();
    }
  }
  // The same transaction puts the change's webhook deliveries in the outbox (docs/webhooks.md): a change,
  // its audit row and its notifications commit or roll back together. The event id is the audit row's.
  await enqueueWebhookEvents(
    trx,
    rows.map((r, i) => ({ ...(list[i] as AuditEntry), id: r.id, handle: r.object_handle })),
    precompiled?.subscribed,
  );
}

/** An entry from what the store knows of the change and the origin the service passed down. */
export const auditEntry = (change: Change, userId: string, fact: AuditFact): AuditEntry => ({
  ...change,
  ...fact,
  userId: fact.userId ?? userId,
});

const toRecord = (r: Selectable<AuditEventsTable>): AuditRecord => ({
  seq: readCount(r.seq),
  id: r.id,
  userId: r.user_id,
  at: r.at,
  objectType: r.object_type as AuditObjectType,
  objectId: r.object_id,
  objectHandle: r.object_handle,
  action: r.action as AuditAction,
  keyId: r.key_id,
  integration: r.integration as Integration | null,
  surface: r.surface as AuditSurface,
  clientName: r.client_name,
  clientVersion: r.client_version,
  hashBefore: r.hash_before,
  hashAfter: r.hash_after,
});

/** One user's events, newest first (or oldest first after a seq), `limit` of them, filtered. */
export async function listAudit(db: Kysely<Schema>, userId: string, query: AuditQuery): Promise<AuditRecord[]> {
  let q = db.selectFrom('audit_events').selectAll().where('user_id', '=', userId);
  if (query.objectType) q = q.where('object_type', '=', query.objectType);
  if (query.objectId) q = q.where('object_id', '=', query.objectId);
  if (query.action) q = q.where('action', '=', query.action);
  if (query.surface) q = q.where('surface', '=', query.surface);
  if (query.keyId) q = q.where('key_id', '=', query.keyId);
  if (query.since) q = q.where('at', '>=', query.since);
  if (query.until) q = q.where('at', '<', query.until);
  if (query.beforeSeq !== undefined) q = q.where('seq', '<', query.beforeSeq);
  if (query.afterSeq !== undefined) q = q.where('seq', '>', query.afterSeq);
  const rows = await q
    .orderBy('seq', query.afterSeq !== undefined ? 'asc' : 'desc')
    .limit(query.limit)
    .execute();
  return rows.map(toRecord);
}

/**
 * Deletes events older than `before`, at most `limit` of them (oldest first), and says how many went: the
 * retention job calls it in rounds off the request path, so no statement holds the table for long.
 */
export async function pruneAudit(db: Kysely<Schema>, before: string, limit: number): Promise<number> {
  const doomed = db.selectFrom('audit_events').select('seq').where('at', '<', before).orderBy('seq').limit(limit);
  const result = await db.deleteFrom('audit_events').where('seq', 'in', doomed).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function createAuditStore(db: Kysely<Schema>): AuditStore {
  return {
    list: (userId, query) => listAudit(db, userId, query),
    prune: (before, limit) => pruneAudit(db, before, limit),
  };
}
