// Shapes of the dashboard JSON API (docs/dashboard-api.md, docs/api.md).
import type { VariableSchema } from './variables';

export type { VariableSchema, VariableSpec } from './variables';

export type SignupMode = 'open' | 'invite' | 'closed';

export interface DashboardConfig {
  signup_mode: SignupMode;
  has_users: boolean;
}

export interface User {
  id: string;
  email: string;
  tier: string;
  rate_limit: number | null;
  is_admin: boolean;
  created_at: string;
  updated_at: string;
}

export const INTEGRATIONS = ['ai_tools', 'cli', 'mcp_server', 'marketplace'] as const;
export type Integration = (typeof INTEGRATIONS)[number];

export interface ApiKey {
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

export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface UsageHour {
  hour_start: string;
  key_id: string | null;
  key_name: string | null;
  count: number;
}

export interface Usage {
  window: { count: number; limit: number; remaining: number; reset: number };
  hours: UsageHour[];
}

export interface Page {
  total: number;
  page: number;
  per_page: number;
}

export type PromptStatus = 'draft' | 'published';

export interface PromptSummary {
  id: string;
  slug: string;
  title: string;
  description: string;
  status: PromptStatus;
  available_in_mcp: boolean;
  labels: string[];
  created_at: string;
  updated_at: string;
}

export interface Prompt extends PromptSummary {
  content: string;
  variables: string[];
  /** As `@slug`. */
  references: string[];
  variable_schema: VariableSchema;
  /** The current version; also the ETag (`If-Match: "<version>"`). */
  version: number;
  /** References whose target prompt does not exist, as `@slug`. */
  broken_references: string[];
}

export interface PromptInput {
  title: string;
  description: string;
  content: string;
  status: PromptStatus;
  available_in_mcp: boolean;
  labels: string[];
  variable_schema?: VariableSchema | null;
  commit_message?: string | null;
}

export interface PromptWritten {
  id: string;
  slug: string;
  version: number;
  message: string;
}

export interface PromptVersionSummary {
  version: number;
  title: string;
  commit_message: string | null;
  created_at: string;
}

export interface PromptVersion extends PromptVersionSummary {
  description: string;
  content: string;
  labels: string[];
  variable_schema: VariableSchema;
}

export interface RenderInput {
  variables: Record<string, string>;
  resolve: boolean;
  strict: boolean;
}

export interface RenderResult {
  content: string;
  variables_used: string[];
  variables_missing: string[];
  /** As `@slug`. */
  references_resolved: string[];
}

export type Priority = 'high' | 'medium' | 'low';
export const PRIORITIES: readonly Priority[] = ['high', 'medium', 'low'];

export interface ScoreParts {
  keyword: number;
  project: number;
  priority: number;
  recency: number;
  weights: { keyword: number; project: number; priority: number; recency: number };
  bm25: number;
}

export interface Memory {
  memory_id: string;
  text: string;
  project_name: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
  score?: number;
  score_parts?: ScoreParts;
}

export interface MemoryInput {
  text: string;
  project_name: string | null;
  metadata: Record<string, unknown>;
}

export interface ArtifactSummary {
  id: string;
  project: string;
  slug: string;
  title: string;
  description: string;
  content_type: string;
  labels: string[];
  metadata: Record<string, unknown>;
  size_bytes: number;
  sha256: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface Artifact extends ArtifactSummary {
  content: string;
}

export interface ArtifactWritten {
  id: string;
  project: string;
  slug: string;
  title: string;
  version: number;
  message: string;
}

export interface VersionSummary {
  version: number;
  size_bytes: number;
  sha256: string;
  content_type: string;
  created_at: string;
  current: boolean;
}

export interface ArtifactVersion extends VersionSummary {
  content: string;
}

export const TIERS = ['free', 'pro', 'enterprise'] as const;
