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

/** Audit trail (issue 19): the kinds of object a change names, what happened, and where it came from. */
export const AUDIT_OBJECT_TYPES = ['prompt', 'artifact', 'memory', 'api_key', 'prompt_environment', 'account'] as const;
export type AuditObjectType = (typeof AUDIT_OBJECT_TYPES)[number];

export const AUDIT_ACTIONS = [
  'created',
  'updated',
  'deleted',
  'restored',
  'published',
  'unpublished',
  'revoked',
  'moved',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** REST with an API key, MCP, the dashboard (session), the `cairn` CLI (remote or operator), a bundle import. */
export const AUDIT_SURFACES = ['rest', 'mcp', 'dashboard', 'cli', 'import'] as const;
export type AuditSurface = (typeof AUDIT_SURFACES)[number];

/**
 * The remote CLI names itself in `User-Agent: cairn-cli/<version>`, so the audit trail records its REST
 * changes under the surface `cli` (self-reported, like MCP clientInfo: it labels, it grants nothing).
 */
export const CLI_CLIENT_NAME = 'cairn-cli';
export const CLI_VERSION = '0.1.0';
/**
 * Webhook event types a user may subscribe to (docs/webhooks.md). `webhook.test` is not subscribable: it is
 * sent only by the "send test event" action, to the one endpoint tested.
 */
export const WEBHOOK_EVENT_TYPES = [
  'prompt.created',
  'prompt.updated',
  'prompt.deleted',
  'artifact.created',
  'artifact.updated',
  'artifact.deleted',
  'memory.created',
  'memory.updated',
  'memory.deleted',
  'environment.moved',
  'key.created',
  'key.revoked',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_TEST_EVENT = 'webhook.test' as const;
