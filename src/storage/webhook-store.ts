import { type Kysely, type Selectable, sql } from 'kysely';
import type { AuditEntryLike, WebhookEvent } from '../domain/webhooks/webhook-events.js';
import { webhookEventFromAudit, webhookPayload } from '../domain/webhooks/webhook-events.js';
import type {
  ClaimedDelivery,
  DeliveryStatus,
  WebhookEndpointRecord,
  WebhookStore,
} from '../domain/webhooks/webhook-store.js';
import { readBool, readCount, readJson, writeBool, writeJson } from './codec.js';
import type { SqlDialect } from './dialects/sql-dialect.js';
import { precompileStatement } from './precompiled.js';
import type { Schema, WebhookEndpointsTable } from './schema.js';

const toEndpoint = (row: Selectable<WebhookEndpointsTable>): WebhookEndpointRecord => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  description: row.description,
  secret: row.secret,
  events: readJson<string[]>(row.events),
  enabled: readBool(row.enabled),
  disabledReason: row.disabled_reason,
  consecutiveFailures: Number(row.consecutive_failures),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * The outbox write, inside the caller's transaction: one delivery per enabled endpoint of the event's user
 * subscribed to its type, in ONE indexed INSERT … SELECT (no endpoint is read into the process). Committed or
 * rolled back with the change it reports, so no event is lost and none is sent for a change that never
 * happened. Mapping the same event twice enqueues it once (unique event and endpoint).
 * This is the function the audit log calls: `enqueueWebhookEvent(trx, webhookEventFromAudit(entry))`.
 */
export async function enqueueWebhookEvent(trx: Kysely<Schema>, event: WebhookEvent): Promise<number> {
  const result = await deliveriesOf(trx, {
    id: event.id,
    userId: event.userId,
    type: event.type,
    occurredAt: event.occurredAt,
    payload: webhookPayload(event),
  }).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/**
 * The INSERT … SELECT of enqueueWebhookEvent for an event's fields (values, or a precompiled statement's
 * markers: PostgreSQL's one-statement create, memory-store.ts, runs it as one of its parts).
 */
export const deliveriesOf = (
  db: Kysely<Schema>,
  event: { id: string; userId: string; type: string; occurredAt: string; payload: string },
) =>
  db
    .insertInto('webhook_deliveries')
    .columns([
      'event_id',
      'endpoint_id',
      'user_id',
      'event_type',
      'payload',
      'status',
      'attempts',
      'next_attempt_at',
      'created_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom('webhook_subscriptions as s')
        .innerJoin('webhook_endpoints as e', 'e.id', 's.endpoint_id')
        .select([
          sql<string>`cast(${event.id} as text)`.as('event_id'),
          's.endpoint_id',
          's.user_id',
          's.event_type',
          sql<string>`cast(${event.payload} as text)`.as('payload'),
          sql<string>`'pending'`.as('status'),
          sql<number>`0`.as('attempts'),
          sql<string>`cast(${event.occurredAt} as text)`.as('next_attempt_at'),
          sql<string>`cast(${event.occurredAt} as text)`.as('created_at'),
        ])
        .where('s.user_id', '=', event.userId)
        .where('s.event_type', '=', event.type)
        .where('e.enabled', '=', writeBool(true)),
    )
    .onConflict((oc) => oc.doNothing());

/**
 * The webhook deliveries of changes being recorded (audit-store.ts `appendAudit`, inside the change's
 * transaction). One indexed read when none of their users subscribes to their event types — the common
 * case, so a write without webhooks pays one cheap query, a batch of 100 memories too — else one
 * INSERT … SELECT per event.
 */
export async function enqueueWebhookEvents(
  trx: Kysely<Schema>,
  entries: readonly AuditEntryLike[],
  precompiled?: SubscriptionCheck,
): Promise<void> {
  const events = entries.map(webhookEventFromAudit).filter((event): event is WebhookEvent => event !== null);
  const [only] = events;
  if (only === undefined) return;
  const subscribed =
    events.length === 1 && precompiled
      ? (await precompiled(trx, only.userId, only.type))[0]
      : await subscriptionsOf(
          trx,
          [...new Set(events.map((event) => event.userId))],
          [...new Set(events.map((event) => event.type))],
        ).executeTakeFirst();
  if (!subscribed) return;
  for (const event of events) await enqueueWebhookEvent(trx, event);
}

/** Whether any of `users` subscribes to any of `types`: one row at most. */
const subscriptionsOf = (db: Kysely<Schema>, users: string[], types: string[]) =>
  db
    .selectFrom('webhook_subscriptions')
    .select('endpoint_id')
    .where('user_id', 'in', users)
    .where('event_type', 'in', types)
    .limit(1);

/** subscriptionsOf for one user and one event type, compiled once for `db` (a create's check, precompiled.ts). */
export const subscriptionCheck = (db: Kysely<Schema>) =>
  precompileStatement((userId: string, type: string) => subscriptionsOf(db, [userId], [type]), 2);

export type SubscriptionCheck = ReturnType<typeof subscriptionCheck>;

async function insertEndpoint(db: Kysely<Schema>, endpoint: WebhookEndpointRecord, maxPerUser: number) {
  return db.transaction().execute(async (trx) => {
    const { count } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('user_id', '=', endpoint.userId)
      .executeTakeFirstOrThrow();
    if (readCount(count) >= maxPerUser) return false;
    await trx
      .insertInto('webhook_endpoints')
      .values({
        id: endpoint.id,
        user_id: endpoint.userId,
        url: endpoint.url,
        description: endpoint.description,
        secret: endpoint.secret,
        events: writeJson(endpoint.events),
        enabled: writeBool(endpoint.enabled),
        disabled_reason: endpoint.disabledReason,
        consecutive_failures: 0,
        created_at: endpoint.createdAt,
        updated_at: endpoint.updatedAt,
      })
      .execute();
    await writeSubscriptions(trx, endpoint.userId, endpoint.id, endpoint.events);
    return true;
  });
}

async function writeSubscriptions(trx: Kysely<Schema>, userId: string, endpointId: string, events: string[]) {
  await trx.deleteFrom('webhook_subscriptions').where('endpoint_id', '=', endpointId).execute();
  if (events.length === 0) return;
  await trx
    .insertInto('webhook_subscriptions')
    .values(events.map((type) => ({ endpoint_id: endpointId, user_id: userId, event_type: type })))
    .execute();
}

async function findEndpoint(db: Kysely<Schema>, userId: string, id: string) {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && toEndpoint(row);
}

async function updateEndpoint(
  db: Kysely<Schema>,
  userId: string,
  id: string,
  patch: Parameters<WebhookStore['update']>[2],
) {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('webhook_endpoints')
      .set({
        updated_at: patch.updatedAt,
        ...(patch.url !== undefined && { url: patch.url }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.events !== undefined && { events: writeJson(patch.events) }),
        ...(patch.secret !== undefined && { secret: patch.secret }),
        ...(patch.enabled !== undefined && { enabled: writeBool(patch.enabled) }),
        ...(patch.enabled === true && { disabled_reason: null, consecutive_failures: 0 }),
        ...(patch.enabled === false && { disabled_reason: null }),
      })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return undefined;
    if (patch.events !== undefined) await writeSubscriptions(trx, userId, id, patch.events);
    return findEndpoint(trx, userId, id);
  });
}

async function page<T>(rows: Promise<T[]>, total: Promise<{ count: unknown }>) {
  const [r, t] = await Promise.all([rows, total]);
  return { rows: r, total: readCount(t.count) };
}

async function claim(
  db: Kysely<Schema>,
  dialect: SqlDialect,
  owner: string,
  now: string,
  leaseUntil: string,
  limit: number,
): Promise<ClaimedDelivery[]> {
  // One statement: the rows the subquery picks are leased by this UPDATE alone (SQLite: one writer at a
  // time; PostgreSQL: the subquery's rows are locked, and rows another claimer holds are skipped).
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ lease_owner: owner, lease_expires_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('seq', 'in', (eb) =>
      dialect.skipLocked(
        eb
          .selectFrom('webhook_deliveries as d')
          .select('d.seq')
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', now)
          .where((w) => w.or([w('d.lease_expires_at', 'is', null), w('d.lease_expires_at', '<', now)]))
          .where('d.endpoint_id', 'in', (sub) =>
            sub.selectFrom('webhook_endpoints').select('id').where('enabled', '=', writeBool(true)),
          )
          .orderBy('d.next_attempt_at')
          .orderBy('d.seq')
          .limit(limit),
      ),
    )
    .returning(['seq', 'event_id', 'event_type', 'endpoint_id', 'user_id', 'payload', 'attempts'])
    .execute();
  if (claimed.length === 0) return [];
  const endpointIds = [...new Set(claimed.map((row) => row.endpoint_id))];
  const endpoints = new Map(
    (
      await db.selectFrom('webhook_endpoints').select(['id', 'url', 'secret']).where('id', 'in', endpointIds).execute()
    ).map((row) => [row.id, row]),
  );
  return claimed.flatMap((row) => {
    const endpoint = endpoints.get(row.endpoint_id);
    if (!endpoint) return []; // deleted meanwhile: its deliveries went with it
    return [
      {
        seq: readCount(row.seq),
        eventId: row.event_id,
        eventType: row.event_type,
        endpointId: row.endpoint_id,
        userId: row.user_id,
        payload: row.payload,
        attempt: Number(row.attempts),
        url: endpoint.url,
        secret: endpoint.secret,
      },
    ];
  });
}

async function settle(
  db: Kysely<Schema>,
  claimed: ClaimedDelivery,
  owner: string,
  result: Parameters<WebhookStore['settle']>[2],
  disableAfter: number,
) {
  const status: DeliveryStatus =
    result.outcome === 'succeeded' ? 'succeeded' : result.retryAt === undefined ? 'failed' : 'pending';
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_seq: claimed.seq,
        endpoint_id: claimed.endpointId,
        user_id: claimed.userId,
        event_id: claimed.eventId,
        event_type: claimed.eventType,
        attempt: claimed.attempt,
        outcome: result.outcome,
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        error: result.error,
        attempted_at: result.at,
      })
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        lease_owner: null,
        lease_expires_at: null,
        last_status_code: result.statusCode,
        last_error: result.error,
        ...(status === 'pending' && result.retryAt !== undefined && { next_attempt_at: result.retryAt }),
        ...(status !== 'pending' && { completed_at: result.at }),
      })
      .where('seq', '=', claimed.seq)
      .where('lease_owner', '=', owner)
      .execute();
    if (result.outcome === 'succeeded') {
      await trx
        .updateTable('webhook_endpoints')
        .set({ consecutive_failures: 0 })
        .where('id', '=', claimed.endpointId)
        .where('consecutive_failures', '>', 0)
        .execute();
      return;
    }
    const reason = `Disabled automatically after ${disableAfter} consecutive failed deliveries (last: ${
      result.statusCode === null ? (result.error ?? 'no response') : `HTTP ${result.statusCode}`
    }) at ${result.at}`;
    await trx
      .updateTable('webhook_endpoints')
      .set((eb) => ({
        consecutive_failures: eb('consecutive_failures', '+', 1),
        enabled: eb
          .case()
          .when('consecutive_failures', '>=', disableAfter - 1)
          .then(sql<number>`${writeBool(false)}`)
          .else(eb.ref('enabled'))
          .end(),
        disabled_reason: eb
          .case()
          .when('consecutive_failures', '>=', disableAfter - 1)
          .then(reason)
          .else(eb.ref('disabled_reason'))
          .end(),
      }))
      .where('id', '=', claimed.endpointId)
      .where('enabled', '=', writeBool(true))
      .execute();
  });
}

export function createWebhookStore(db: Kysely<Schema>, dialect: SqlDialect): WebhookStore {
  const endpointRows = (userId: string, endpointId: string) =>
    db.selectFrom('webhook_endpoints').select('id').where('id', '=', endpointId).where('user_id', '=', userId);
  return {
    insert: (endpoint, maxPerUser) => insertEndpoint(db, endpoint, maxPerUser),
    async list(userId) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toEndpoint);
    },
    find: (userId, id) => findEndpoint(db, userId, id),
    update: (userId, id, patch) => updateEndpoint(db, userId, id, patch),
    async delete(userId, id) {
      const result = await db
        .deleteFrom('webhook_endpoints')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    enqueue: (event) => db.transaction().execute((trx) => enqueueWebhookEvent(trx, event)),
    async enqueueFor(endpointId, event, at) {
      await db
        .insertInto('webhook_deliveries')
        .values({
          event_id: event.id,
          endpoint_id: endpointId,
          user_id: event.userId,
          event_type: event.type,
          payload: webhookPayload(event),
          status: 'pending',
          attempts: 0,
          next_attempt_at: at,
          created_at: at,
        })
        .execute();
    },
    deliveries: (userId, endpointId, offset, limit) =>
      page(
        db
          .selectFrom('webhook_deliveries')
          .select([
            'seq',
            'event_id',
            'endpoint_id',
            'event_type',
            'status',
            'attempts',
            'next_attempt_at',
            'last_status_code',
            'last_error',
            'created_at',
            'completed_at',
          ])
          .where('endpoint_id', 'in', endpointRows(userId, endpointId))
          .orderBy('seq', 'desc')
          .offset(offset)
          .limit(limit)
          .execute()
          .then((rows) =>
            rows.map((row) => ({
              seq: readCount(row.seq),
              eventId: row.event_id,
              endpointId: row.endpoint_id,
              eventType: row.event_type,
              status: row.status as DeliveryStatus,
              attempts: Number(row.attempts),
              nextAttemptAt: row.next_attempt_at,
              lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
              lastError: row.last_error,
              createdAt: row.created_at,
              completedAt: row.completed_at,
            })),
          ),
        db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('endpoint_id', 'in', endpointRows(userId, endpointId))
          .executeTakeFirstOrThrow(),
      ),
    attempts: (userId, endpointId, offset, limit) =>
      page(
        db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('endpoint_id', '=', endpointId)
          .where('user_id', '=', userId)
          .orderBy('seq', 'desc')
          .offset(offset)
          .limit(limit)
          .execute()
          .then((rows) =>
            rows.map((row) => ({
              seq: readCount(row.seq),
              eventId: row.event_id,
              eventType: row.event_type,
              attempt: Number(row.attempt),
              outcome: row.outcome as 'succeeded' | 'failed',
              statusCode: row.status_code === null ? null : Number(row.status_code),
              durationMs: Number(row.duration_ms),
              error: row.error,
              attemptedAt: row.attempted_at,
            })),
          ),
        db
          .selectFrom('webhook_attempts')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('endpoint_id', '=', endpointId)
          .where('user_id', '=', userId)
          .executeTakeFirstOrThrow(),
      ),
    async hasDue(now) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select('seq')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<', now)]))
        .where('endpoint_id', 'in', (sub) =>
          sub.selectFrom('webhook_endpoints').select('id').where('enabled', '=', writeBool(true)),
        )
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    claim: (owner, now, leaseUntil, limit) => claim(db, dialect, owner, now, leaseUntil, limit),
    settle: (claimed, owner, result, disableAfter) => settle(db, claimed, owner, result, disableAfter),
    async prune(before, limit) {
      // Bounded batches through the indexes (seq order is time order), never one unbounded DELETE.
      const attempts = await db
        .deleteFrom('webhook_attempts')
        .where('seq', 'in', (eb) =>
          eb
            .selectFrom('webhook_attempts')
            .select('seq')
            .where('attempted_at', '<', before)
            .orderBy('seq')
            .limit(limit),
        )
        .executeTakeFirst();
      const deliveries = await db
        .deleteFrom('webhook_deliveries')
        .where('seq', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('seq')
            .where('status', '!=', 'pending')
            .where('completed_at', '<', before)
            .where((w) =>
              w.not(
                w.exists(
                  w
                    .selectFrom('webhook_attempts as a')
                    .select('a.seq')
                    .whereRef('a.delivery_seq', '=', 'webhook_deliveries.seq'),
                ),
              ),
            )
            .orderBy('seq')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
    },
    async release(claimed, owner) {
      await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ lease_owner: null, lease_expires_at: null, attempts: eb('attempts', '-', 1) }))
        .where('seq', '=', claimed.seq)
        .where('lease_owner', '=', owner)
        .execute();
    },
  };
}
