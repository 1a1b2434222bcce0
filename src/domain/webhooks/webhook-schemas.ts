import { z } from 'zod';
import {
  WEBHOOK_DESCRIPTION_MAX,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENTS_MAX,
  WEBHOOK_URL_MAX,
} from '../../contract/index.js';
import { boundedArray, boundedString } from '../common/bounds.js';
import { paginationQuery } from '../common/pagination.js';
import { webhookUrlProblem } from './webhook-address.js';

/** Syntax only (http(s), no credentials, length); private ranges and resolution are the service's (settings). */
const urlSchema = boundedString(WEBHOOK_URL_MAX, `Must be at most ${WEBHOOK_URL_MAX} characters`)
  .trim()
  .superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value, true);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description: 'An http:// or https:// URL the events are POSTed to',
    example: 'https://example.com/hooks/cairn',
  });

const eventsSchema = boundedArray(z.enum(WEBHOOK_EVENT_TYPES), WEBHOOK_EVENTS_MAX)
  .min(1, 'Choose at least one event')
  .transform((events) => [...new Set(events)])
  .meta({ description: `Event types to receive: ${WEBHOOK_EVENT_TYPES.join(', ')}` });

const descriptionSchema = boundedString(
  WEBHOOK_DESCRIPTION_MAX,
  `Must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`,
).trim();

export const createWebhookInput = z.strictObject({
  url: urlSchema,
  events: eventsSchema,
  description: descriptionSchema.optional(),
  enabled: z.boolean().optional(),
});
export type CreateWebhookInput = z.input<typeof createWebhookInput>;

/** Partial update; `enabled: true` re-enables an endpoint disabled after failures (and clears its count). */
export const updateWebhookInput = z.strictObject({
  url: urlSchema.optional(),
  events: eventsSchema.optional(),
  description: descriptionSchema.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookInput = z.input<typeof updateWebhookInput>;

export const webhookViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabled_reason: z
    .string()
    .nullable()
    .meta({ description: 'Why the endpoint was disabled automatically, if it was' }),
  consecutive_failures: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookView = z.infer<typeof webhookViewSchema>;

export const webhookWithSecretSchema = webhookViewSchema.extend({
  secret: z.string().meta({ description: 'The signing secret (whsec_…), shown this once' }),
});
export const webhookListSchema = z.object({ webhooks: z.array(webhookViewSchema) });

export const deliveryViewSchema = z.object({
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
export const attemptViewSchema = z.object({
  event_id: z.string(),
  event_type: z.string(),
  attempt: z.number().int(),
  outcome: z.enum(['succeeded', 'failed']),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  attempted_at: z.string(),
});
const paged = { total: z.number().int(), page: z.number().int(), per_page: z.number().int() };
export const deliveryPageSchema = z.object({ deliveries: z.array(deliveryViewSchema), ...paged });
export const attemptPageSchema = z.object({ attempts: z.array(attemptViewSchema), ...paged });
export const testEventSchema = z.object({ event_id: z.string(), message: z.string() });
export const webhookPageQuery = z.object(paginationQuery);
