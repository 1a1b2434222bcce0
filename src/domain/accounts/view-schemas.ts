import { z } from 'zod';
import type { ApiKeyView, UserView } from './account-schemas.js';
import { SIGNUP_MODES } from './session-service.js';

/**
 * The dashboard API's answers (docs/dashboard-api.md) as schemas, for its route declarations. The views
 * themselves are built by `toUserView` and `toKeyView`; `Same` below makes a drift between these schemas
 * and the view types a compile error.
 */
const timestamp = z.string().meta({ format: 'date-time' });

export const userViewSchema = z.object({
  id: z.string(),
  email: z.string(),
  tier: z.string(),
  rate_limit: z.number().int().nullable(),
  is_admin: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const apiKeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  integrations: z.array(z.string()),
  legacy: z.boolean(),
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
  request_count: z.number().int(),
  revoked_at: timestamp.nullable(),
});

export const signupConfigSchema = z.object({ signup_mode: z.enum(SIGNUP_MODES), has_users: z.boolean() });
export const userAnswerSchema = z.object({ user: userViewSchema });
export const userListSchema = z.object({ users: z.array(userViewSchema) });
export const inviteSchema = z.object({ code: z.string() });
export const keyListSchema = z.object({ keys: z.array(apiKeyViewSchema) });
export const createdKeySchema = apiKeyViewSchema.extend({
  key: z.string().meta({ description: 'The key itself: shown this once, never stored' }),
});

export const usageSchema = z.object({
  window: z.object({
    count: z.number().int(),
    limit: z.number().int(),
    remaining: z.number().int(),
    reset: z.number().int().meta({ description: 'Epoch seconds of the next window' }),
  }),
  hours: z.array(
    z.object({ hour_start: timestamp, key_id: z.string(), key_name: z.string(), count: z.number().int() }),
  ),
});

/** `?hours=`: 1 to 168, anything else (missing, not a number, 0) the default 48 — as lenient as the dashboard. */
export const usageQuery = z.object({
  hours: z
    .string()
    .max(20)
    .optional()
    .catch(undefined)
    .transform((value) => Math.min(168, Math.max(1, Number.parseInt(value ?? '48', 10) || 48))),
});

// Compile-time checks: each schema's output is exactly its view type.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const viewsMatch: [
  Same<z.output<typeof userViewSchema>, UserView>,
  Same<z.output<typeof apiKeyViewSchema>, ApiKeyView>,
] = [true, true];
void viewsMatch;
