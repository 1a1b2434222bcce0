/**
 * The API's closed sets of values. Each is an `as const` tuple (the domain's `z.enum` takes it as it is) and
 * a union type of its members.
 */

export const PROMPT_STATUSES = ['draft', 'published'] as const;
export type PromptStatus = (typeof PROMPT_STATUSES)[number];

/** Memory priority (metadata.priority), highest first. */
export const PRIORITIES = ['high', 'medium', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Memory metadata keys the server checks; the other keys are free. */
export const KNOWN_METADATA_KEYS = ['category', 'priority', 'tags'] as const;

/** What an API key may be used for (api-decisions §3). */
export const INTEGRATIONS = ['ai_tools', 'cli', 'mcp_server', 'marketplace'] as const;
export type Integration = (typeof INTEGRATIONS)[number];

/** Rate-limit tiers (api-decisions §4). */
export const TIERS = ['free', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** Who may create an account on the dashboard. */
export const SIGNUP_MODES = ['open', 'invite', 'closed'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];
