import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { parseInput } from '../common/validation.js';
import { isBlockedAddress, urlHost, webhookUrlProblem } from './webhook-address.js';
import { newEventId, WEBHOOK_TEST_EVENT } from './webhook-events.js';
import {
  type CreateWebhookInput,
  createWebhookInput,
  type UpdateWebhookInput,
  updateWebhookInput,
  type WebhookView,
} from './webhook-schemas.js';
import { generateWebhookSecret } from './webhook-signature.js';
import type { WebhookEndpointRecord, WebhookStore } from './webhook-store.js';

/** Every address a host name resolves to (the delivery side resolves again, and checks again). */
export type ResolveHost = (host: string) => Promise<string[]>;

export interface WebhookServiceDeps {
  webhooks: WebhookStore;
  clock: Clock;
  ids: IdGenerator;
  resolveHost: ResolveHost;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: the operator lets webhooks reach loopback and private ranges. */
  allowPrivateNetworks: boolean;
  maxEndpointsPerUser: number;
  /** Tells this instance's dispatcher there is work (others find it by polling). */
  wake?: () => void;
}

export const toWebhookView = (record: WebhookEndpointRecord): WebhookView => ({
  id: record.id,
  url: record.url,
  description: record.description,
  events: record.events,
  enabled: record.enabled,
  disabled_reason: record.disabledReason,
  consecutive_failures: record.consecutiveFailures,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});

export function createWebhookService(deps: WebhookServiceDeps) {
  const { webhooks, clock, ids } = deps;

  /** The URL rules with the operator's setting, and (for host names) every address it resolves to now. */
  async function checkUrl(url: string): Promise<void> {
    const problem = webhookUrlProblem(url, deps.allowPrivateNetworks);
    if (problem) throw new ValidationError({ url: problem });
    if (deps.allowPrivateNetworks) return;
    const { host, literal } = urlHost(url);
    if (literal) return;
    let addresses: string[];
    try {
      addresses = await deps.resolveHost(host);
    } catch {
      throw new ValidationError({ url: `The host name ${host} does not resolve` });
    }
    if (addresses.length === 0) throw new ValidationError({ url: `The host name ${host} does not resolve` });
    if (addresses.some(isBlockedAddress)) {
      throw new ValidationError({
        url: 'Refused: the host name resolves to a loopback, private, link-local or reserved address',
      });
    }
  }

  async function find(actor: Actor, id: string): Promise<WebhookEndpointRecord> {
    const record = isId('whk', id) ? await webhooks.find(actor.userId, id) : undefined;
    if (!record) throw new NotFoundError('Webhook');
    return record;
  }

  const window = (query: { page: number; per_page: number }) => ({
    offset: (query.page - 1) * query.per_page,
    limit: query.per_page,
  });

  return {
    async list(actor: Actor) {
      return { webhooks: (await webhooks.list(actor.userId)).map(toWebhookView) };
    },

    async get(actor: Actor, id: string): Promise<WebhookView> {
      return toWebhookView(await find(actor, id));
    },

    /** Registers an endpoint. The signing secret is in the answer this once. */
    async create(actor: Actor, input: CreateWebhookInput): Promise<WebhookView & { secret: string }> {
      const data = parseInput(createWebhookInput, input);
      await checkUrl(data.url);
      const now = clock.now().toISOString();
      const record: WebhookEndpointRecord = {
        id: ids('whk'),
        userId: actor.userId,
        url: data.url,
        description: data.description ?? '',
        secret: generateWebhookSecret(),
        events: data.events,
        enabled: data.enabled ?? true,
        disabledReason: null,
        consecutiveFailures: 0,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await webhooks.insert(record, deps.maxEndpointsPerUser))) {
        throw new ConflictError(`At most ${deps.maxEndpointsPerUser} webhooks per account`);
      }
      return { ...toWebhookView(record), secret: record.secret };
    },

    async update(actor: Actor, id: string, input: UpdateWebhookInput): Promise<WebhookView> {
      const data = parseInput(updateWebhookInput, input);
      await find(actor, id);
      if (data.url !== undefined) await checkUrl(data.url);
      const updated = await webhooks.update(actor.userId, id, { ...data, updatedAt: clock.now().toISOString() });
      if (!updated) throw new NotFoundError('Webhook');
      if (data.enabled) deps.wake?.();
      return toWebhookView(updated);
    },

    /** A new signing secret, shown this once; the old one stops signing at once. */
    async rotateSecret(actor: Actor, id: string): Promise<WebhookView & { secret: string }> {
      await find(actor, id);
      const secret = generateWebhookSecret();
      const updated = await webhooks.update(actor.userId, id, { secret, updatedAt: clock.now().toISOString() });
      if (!updated) throw new NotFoundError('Webhook');
      return { ...toWebhookView(updated), secret };
    },

    async delete(actor: Actor, id: string): Promise<void> {
      if (!isId('whk', id) || !(await webhooks.delete(actor.userId, id))) throw new NotFoundError('Webhook');
    },

    /** Queues a `webhook.test` event for this endpoint alone, through the same outbox as every event. */
    async sendTest(actor: Actor, id: string): Promise<{ event_id: string; message: string }> {
      const record = await find(actor, id);
      if (!record.enabled) throw new ConflictError('This webhook is disabled: enable it to send a test event');
      const now = clock.now().toISOString();
      const eventId = newEventId(now);
      await webhooks.enqueueFor(
        record.id,
        {
          id: eventId,
          userId: actor.userId,
          type: WEBHOOK_TEST_EVENT,
          occurredAt: now,
          object: { type: 'webhook', id: record.id, handle: null },
          actor: { keyId: actor.keyId ?? null, surface: actor.via },
        },
        now,
      );
      deps.wake?.();
      return { event_id: eventId, message: 'Test event queued' };
    },

    async deliveries(actor: Actor, id: string, query: { page: number; per_page: number }) {
      await find(actor, id);
      const { offset, limit } = window(query);
      const { rows, total } = await webhooks.deliveries(actor.userId, id, offset, limit);
      return {
        deliveries: rows.map((row) => ({
          event_id: row.eventId,
          event_type: row.eventType,
          status: row.status,
          attempts: row.attempts,
          next_attempt_at: row.status === 'pending' ? row.nextAttemptAt : null,
          last_status_code: row.lastStatusCode,
          last_error: row.lastError,
          created_at: row.createdAt,
          completed_at: row.completedAt,
        })),
        total,
        ...query,
      };
    },

    async attempts(actor: Actor, id: string, query: { page: number; per_page: number }) {
      await find(actor, id);
      const { offset, limit } = window(query);
      const { rows, total } = await webhooks.attempts(actor.userId, id, offset, limit);
      return {
        attempts: rows.map((row) => ({
          event_id: row.eventId,
          event_type: row.eventType,
          attempt: row.attempt,
          outcome: row.outcome,
          status_code: row.statusCode,
          duration_ms: row.durationMs,
          error: row.error,
          attempted_at: row.attemptedAt,
        })),
        total,
        ...query,
      };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
