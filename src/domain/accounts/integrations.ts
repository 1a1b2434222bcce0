/**
 * Integrations an API key can hold, and which of them each surface accepts (api-decisions §3).
 * This table is the single place the policy lives; transports ask it, they never restate it.
 */
import type { Integration } from '../../contract/index.js';

export { INTEGRATIONS, type Integration } from '../../contract/index.js';

export type Surface =
  | 'account'
  | 'prompts.read'
  | 'prompts.write'
  | 'memories'
  | 'artifacts'
  | 'bundles'
  | 'context'
  | 'audit'
  | 'webhooks'
  | 'mcp';

const ACCEPTED: Record<Surface, readonly Integration[]> = {
  // Who am I: any key may ask.
  account: ['ai_tools', 'cli', 'mcp_server', 'marketplace'],
  // A marketplace-only key may read prompts, and the prompt service then shows it published ones only.
  'prompts.read': ['ai_tools', 'cli', 'marketplace'],
  'prompts.write': ['ai_tools', 'cli'],
  memories: ['ai_tools', 'cli'],
  artifacts: ['ai_tools', 'cli'],
  // Export and import: the whole content at once.
  bundles: ['ai_tools', 'cli'],
  // The context block is built for AI tools (issue 16): their integration alone.
  context: ['ai_tools'],
  // The audit trail of the whole account: the keys that manage content (as export does).
  audit: ['ai_tools', 'cli'],
  // Webhook management: the keys that manage content (the dashboard manages them with a session).
  webhooks: ['ai_tools', 'cli'],
  mcp: ['mcp_server'],
};

export function acceptedIntegrations(surface: Surface): readonly Integration[] {
  return ACCEPTED[surface];
}

export function allows(held: ReadonlySet<Integration>, surface: Surface): boolean {
  return ACCEPTED[surface].some((integration) => held.has(integration));
}

/** True when the key may see only published prompts (marketplace without ai_tools or cli). */
export function publishedPromptsOnly(held: ReadonlySet<Integration>): boolean {
  return held.has('marketplace') && !held.has('ai_tools') && !held.has('cli');
}
