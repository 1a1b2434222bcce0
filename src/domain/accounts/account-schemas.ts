import { z } from 'zod';
import { TIERS } from '../limits/rate-limit.js';
import { INTEGRATIONS } from './integrations.js';

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'Must be an e-mail address');

export const tierSchema = z.enum(TIERS);
export const integrationSchema = z.enum(INTEGRATIONS);
export const rateLimitSchema = z.number().int().min(0).max(1_000_000_000);

export const createUserInput = z.strictObject({
  email: emailSchema,
  password: z.string().optional(),
  tier: tierSchema.default('free'),
  rateLimit: rateLimitSchema.nullable().optional(),
});
export type CreateUserInput = z.input<typeof createUserInput>;

export const updateUserInput = z.strictObject({
  tier: tierSchema.optional(),
  rateLimit: rateLimitSchema.nullable().optional(),
});
export type UpdateUserInput = z.input<typeof updateUserInput>;

export const createKeyInput = z.strictObject({
  name: z.string().trim().min(1, 'Name is required').max(100),
  integrations: z
    .array(integrationSchema)
    .min(1, 'Choose at least one integration')
    .transform((list) => INTEGRATIONS.filter((i) => list.includes(i))),
});
export type CreateKeyInput = z.input<typeof createKeyInput>;

export const importLegacyKeyInput = z.strictObject({
  key: z.string(),
  name: z.string().trim().min(1).max(100).optional(),
});
export type ImportLegacyKeyInput = z.input<typeof importLegacyKeyInput>;

/** A key as listed: never the hash, never the key itself. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  integrations: string[];
  legacy: boolean;
  created_at: string;
  last_used_at: string | null;
  request_count: number;
  revoked_at: string | null;
}

export interface UserView {
  id: string;
  email: string;
  tier: string;
  rate_limit: number | null;
  is_admin: boolean;
  created_at: string;
  updated_at: string;
}

/** `GET /api/v1/me`: who the caller is. */
export const meSchema = z.object({
  user: z.object({ id: z.string(), email: z.string(), tier: tierSchema }),
  key: z
    .object({
      id: z.string(),
      name: z.string(),
      prefix: z.string().meta({ description: 'The first characters of the key, as lists show it' }),
      integrations: z.array(integrationSchema),
      created_at: z.string().meta({ format: 'date-time' }),
    })
    .nullable()
    .meta({ description: 'The API key in use (null for a dashboard session)' }),
});
export type Me = z.infer<typeof meSchema>;
