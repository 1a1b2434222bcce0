import { z } from 'zod';
import {
  type ApiKey,
  EMAIL_MAX,
  INTEGRATIONS,
  INVITE_CODE_MAX,
  KEY_NAME_MAX,
  PASSWORD_INPUT_MAX,
  RATE_LIMIT_MAX,
  TIERS,
  type User,
} from '../../contract/index.js';
import { boundedArray, boundedString } from '../common/bounds.js';
import { passwordProblem } from './password.js';

/**
 * `local@domain.tld`: no spaces, one `@`, a domain of dot-separated labels. The labels exclude the dot, so
 * the pattern is linear (the old `[^\s@]+\.[^\s@]+` backtracked quadratically on a run of dots).
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
export const emailSchema = boundedString(EMAIL_MAX, `Must be at most ${EMAIL_MAX} characters`)
  .trim()
  .toLowerCase()
  .regex(EMAIL_PATTERN, 'Must be an e-mail address');

/** A password as sent: bounded before anything else (the rules, and scrypt, only ever see ≤ 1,024 characters). */
const passwordInput = boundedString(PASSWORD_INPUT_MAX, 'Password must be at most 1,024 characters');

/** A password being set: bounded, then the password rules (length, not a common one), in the schema so that
 * one answer names it with every other bad field. */
const newPassword = passwordInput.superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Dashboard login, sign-up and password change. */
export const credentials = z.strictObject({
  email: emailSchema,
  password: passwordInput.min(1, 'Password is required'),
});
export const signupInput = z.strictObject({
  email: emailSchema,
  password: newPassword,
  invite_code: boundedString(INVITE_CODE_MAX, `Invite code must be at most ${INVITE_CODE_MAX} characters`).optional(),
});
export const passwordChange = z.strictObject({ current_password: passwordInput, new_password: newPassword });

export const tierSchema = z.enum(TIERS);
export const integrationSchema = z.enum(INTEGRATIONS);
export const rateLimitSchema = z.number().int().min(0).max(RATE_LIMIT_MAX);

export const createUserInput = z.strictObject({
  email: emailSchema,
  password: passwordInput.optional(),
  tier: tierSchema.default('free'),
  rateLimit: rateLimitSchema.nullable().optional(),
});
export type CreateUserInput = z.input<typeof createUserInput>;

export const updateUserInput = z.strictObject({
  tier: tierSchema.optional(),
  rateLimit: rateLimitSchema.nullable().optional(),
});
export type UpdateUserInput = z.input<typeof updateUserInput>;

/** Dashboard admin: change a user's tier or hourly limit (`null` = the tier's value). */
export const adminUserPatch = z.strictObject({
  tier: tierSchema.optional(),
  rate_limit: rateLimitSchema.nullable().optional(),
});

export const createKeyInput = z.strictObject({
  name: boundedString(KEY_NAME_MAX, `Name must be at most ${KEY_NAME_MAX} characters`)
    .trim()
    .min(1, 'Name is required'),
  integrations: boundedArray(integrationSchema, INTEGRATIONS.length * 2, 'Too many integrations')
    .min(1, 'Choose at least one integration')
    .transform((list) => INTEGRATIONS.filter((i) => list.includes(i))),
});
export type CreateKeyInput = z.input<typeof createKeyInput>;

export const importLegacyKeyInput = z.strictObject({
  key: boundedString(200, 'Not an API key'),
  name: boundedString(KEY_NAME_MAX, `Name must be at most ${KEY_NAME_MAX} characters`).trim().min(1).optional(),
});
export type ImportLegacyKeyInput = z.input<typeof importLegacyKeyInput>;

/** A key as listed (never the hash, never the key itself) and a user as shown: the contract's shapes. */
export type ApiKeyView = ApiKey;
export type UserView = User;

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
