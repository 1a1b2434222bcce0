import { randomBytes } from 'node:crypto';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, type WebhookEventType } from '../../contract/index.js';
import { ulid } from '../common/ids.js';

export { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, type WebhookEventType };

/** The kinds of object an event is about. */
export type WebhookObjectType = 'prompt' | 'artifact' | 'memory' | 'environment' | 'key' | 'webhook';

/**
 * One change a user's webhooks may hear about. Deliberately **no content**: the object's type, id and
 * handle (slug, `project/slug`, key name) only, so a payload never carries what a receiver's logs should not
 * hold; a receiver that wants the object reads it over the API with its own key. (docs/webhooks.md)
 */
export interface WebhookEvent {
  /** `evt_…`, unique per event; the same on every retry and on every endpoint (receivers dedupe by it). */
  id: string;
  userId: string;
  type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  /** ISO 8601 UTC with milliseconds. */
  occurredAt: string;
  object: { type: WebhookObjectType; id: string; handle?: string | null };
  /** Who made the change, when known: the API key and the surface (rest, mcp, dashboard, cli, operator). */
  actor?: { keyId?: string | null; surface?: string | null };
}

/** A new event id, time-sortable like every id (`evt_` + ULID). */
export const newEventId = (at: Date | string): string =>
  `evt_${ulid(typeof at === 'string' ? Date.parse(at) : at.getTime(), randomBytes(10))}`;

/** The JSON body sent to receivers (snake_case like the API). Built once, at enqueue time. */
export function webhookPayload(event: WebhookEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    occurred_at: event.occurredAt,
    object: { type: event.object.type, id: event.object.id, handle: event.object.handle ?? null },
    actor: { key_id: event.actor?.keyId ?? null, surface: event.actor?.surface ?? null },
  });
}

/**
 * The shape of an audit entry this mapping needs (the audit log's own type may carry more). Kept structural
 * so the audit trail and webhooks meet in one call: `enqueueWebhookEvent(trx, webhookEventFromAudit(entry))`.
 */
export interface AuditEntryLike {
  id?: string;
  userId: string;
  objectType: string;
  objectId: string;
  handle?: string | null;
  /** `create(d)`, `update(d)`, `delete(d)`, `move(d)`, `revoke(d)`; other actions have no webhook event. */
  action: string;
  /** ISO time of the change (`at` or `occurredAt`). */
  at?: string;
  occurredAt?: string;
  keyId?: string | null;
  surface?: string | null;
}

const PAST: Record<string, string> = {
  create: 'created',
  created: 'created',
  insert: 'created',
  update: 'updated',
  updated: 'updated',
  delete: 'deleted',
  deleted: 'deleted',
  move: 'moved',
  moved: 'moved',
  revoke: 'revoked',
  revoked: 'revoked',
  // A prompt published, unpublished or restored to an older version is an update of the prompt.
  published: 'updated',
  unpublished: 'updated',
  restored: 'updated',
};
const OBJECT: Record<string, WebhookObjectType> = {
  prompt: 'prompt',
  artifact: 'artifact',
  memory: 'memory',
  environment: 'environment',
  prompt_environment: 'environment',
  key: 'key',
  api_key: 'key',
};
const SUBSCRIBABLE = new Set<string>(WEBHOOK_EVENT_TYPES);

/**
 * Pure: the webhook event of an audit entry, or null when the change has none (e.g. a key deleted, a
 * session). The event id is derived from the audit entry's id when it has one (`evt_` + its ULID part), so
 * mapping the same entry twice gives the same event, and the outbox's unique (event, endpoint) keeps one.
 */
export function webhookEventFromAudit(entry: AuditEntryLike): WebhookEvent | null {
  const object = OBJECT[entry.objectType.toLowerCase()];
  const past = PAST[entry.action.toLowerCase()];
  if (!object || !past) return null;
  const type = `${object}.${past}`;
  if (!SUBSCRIBABLE.has(type)) return null;
  const occurredAt = entry.occurredAt ?? entry.at ?? new Date().toISOString();
  const auditUlid = entry.id?.match(/_([0-9A-HJKMNP-TV-Z]{26})$/)?.[1];
  return {
    id: auditUlid ? `evt_${auditUlid}` : newEventId(occurredAt),
    userId: entry.userId,
    type: type as WebhookEventType,
    occurredAt,
    object: { type: object, id: entry.objectId, handle: entry.handle ?? null },
    actor: { keyId: entry.keyId ?? null, surface: entry.surface ?? null },
  };
}
