/**
 * Shapes of the API's JSON, as the server sends them and as clients send them (docs/api.md,
 * docs/dashboard-api.md). The domain's zod schemas are checked against these at compile time
 * (src/domain/contract-conformance.ts), so the two cannot drift apart.
 */
import type {
  AuditAction,
  AuditObjectType,
  AuditSurface,
  Integration,
  Priority,
  PromptStatus,
  SignupMode,
  Tier,
} from './enums.js';

/** The JSON body of every error answer. */
export interface ApiErrorBody {
  error: string;
  message: string;
  /** Field → problem, for validation errors. */
  details?: Record<string, string>;
  /** Seconds until the rate-limit window resets (429). */
  retry_after?: number;
  request_id?: string;
}

/** The page part of every list answer. */
export interface PageInfo {
  total: number;
  page: number;
  per_page: number;
}

/**
 * The query of every list (`?page=&per_page=`). The list parameter types are type aliases, not interfaces,
 * so that they fit a client's generic query record.
 */
export type PageParams = {
  page?: number | undefined;
  per_page?: number | undefined;
};

/**
 * The query of a budgeted list (memories, prompts, artifacts): a page or a `cursor` (an answer's
 * `next_cursor`), and `max_chars`, the answer's budget in characters of JSON (docs/api.md, "Budgets").
 */
export type BudgetParams = PageParams & {
  cursor?: string | undefined;
  max_chars?: number | undefined;
};

/** A `{ message }` answer (deletes, logout, password change). */
export interface Message {
  message: string;
}

// --- Accounts ---------------------------------------------------------------------------------------------

export interface User {
  id: string;
  email: string;
  tier: string;
  rate_limit: number | null;
  is_admin: boolean;
  created_at: string;
  updated_at: string;
}

/** A key as listed: never the hash, never the key itself. */
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

/** A key as created: the only answer that carries the key itself. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface CreateKeyInput {
  name: string;
  integrations: Integration[];
}

/** `GET /api/v1/me`: who the caller is; `key` is null for a dashboard session. */
export interface Me {
  user: { id: string; email: string; tier: Tier };
  key: { id: string; name: string; prefix: string; integrations: Integration[]; created_at: string } | null;
}

/** `GET /dashboard/api/config`. */
export interface DashboardConfig {
  signup_mode: SignupMode;
  has_users: boolean;
}

export interface UsageHour {
  hour_start: string;
  key_id: string | null;
  key_name: string | null;
  count: number;
}

/** `GET /dashboard/api/usage`: this hour's window and the requests per hour and key. */
export interface Usage {
  window: { count: number; limit: number; remaining: number; reset: number };
  hours: UsageHour[];
}

// --- Prompts ----------------------------------------------------------------------------------------------

/** What `variable_schema` says about one `{{variable}}`. */
export interface VariableSpec {
  description?: string;
  /** Default true. A variable with a default is never missing. */
  required?: boolean;
  default?: string;
  /** The only values accepted (a default must be one of them). */
  enum?: string[];
}

export type VariableSchema = Record<string, VariableSpec>;

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
  /** The environment this answer was served through (then `version` is the one it points to). */
  environment?: string;
}

/**
 * A list item: a summary, or with `full=true` the whole prompt but `broken_references`. `truncated` marks a
 * preview in an answer with a budget: read the prompt for the whole.
 */
export interface PromptListItem extends PromptSummary {
  content?: string;
  variables?: string[];
  references?: string[];
  variable_schema?: VariableSchema;
  version?: number;
  truncated?: true;
}

/** `GET /prompts`: `label` repeats (all must match); `full` returns whole prompts. */
export type PromptListParams = BudgetParams & {
  status?: PromptStatus | undefined;
  label?: string[] | undefined;
  search?: string | undefined;
  full?: boolean | undefined;
  /** Only prompts with this environment, each as the version it points to. */
  environment?: string | undefined;
};

export interface PromptList extends PageInfo {
  prompts: PromptListItem[];
  /** The `cursor` that continues after the last prompt shown; null at the end (absent from referenced-by). */
  next_cursor?: string | null;
}

export interface CreatePromptInput {
  title: string;
  content: string;
  description?: string | null;
  status?: PromptStatus;
  available_in_mcp?: boolean;
  labels?: string[];
  slug?: string;
  variable_schema?: VariableSchema | null;
  commit_message?: string | null;
}

/** A partial update: the slug never changes. */
export type UpdatePromptInput = Partial<Omit<CreatePromptInput, 'slug'>>;

export interface PromptCreated {
  id: string;
  slug: string;
  title: string;
  version: number;
  message: string;
}

export interface PromptUpdated {
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

export interface PromptVersionList extends PageInfo {
  versions: PromptVersionSummary[];
}

/** An environment: a named pointer from a prompt to one of its versions. */
export interface PromptEnvironment {
  name: string;
  version: number;
  /** Marketplace-only keys see the prompt through this pointer alone. */
  marketplace: boolean;
  updated_at: string;
}

export interface PromptEnvironmentList {
  environments: PromptEnvironment[];
  total: number;
}

export interface SetPromptEnvironmentInput {
  version: number;
  marketplace?: boolean;
}

export interface PromptEnvironmentSet extends PromptEnvironment {
  message: string;
}

export interface RestorePromptInput {
  version: number;
  commit_message?: string | null;
}

export interface RenderPromptInput {
  /** Values by variable name (numbers and booleans are taken as text). */
  variables?: Record<string, string | number | boolean>;
  /** Expand `@references` (default true). */
  resolve?: boolean;
  /** Refuse missing required and unknown variables (default true). */
  strict?: boolean;
}

export interface RenderResult {
  content: string;
  variables_used: string[];
  variables_missing: string[];
  /** As `@slug`. */
  references_resolved: string[];
}

// --- Memories ---------------------------------------------------------------------------------------------

export interface Memory {
  memory_id: string;
  text: string;
  project_name: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
  /** When it expires (hidden from search, lists and context after it, unless pinned); null: never. */
  expires_at: string | null;
  /** Always in its project's context block, first among equals; never hidden while pinned. */
  pinned: boolean;
  /** The newer memory that replaced this one (hidden unless pinned); null: none. */
  superseded_by: string | null;
}

/** A memory's metadata: the known keys the server checks, and any others as given. */
export type MemoryMetadata = {
  [key: string]: unknown;
  category?: string;
  priority?: Priority;
  tags?: string[];
};

/** How a search score was made (`explain=true`). */
export interface ScoreParts {
  keyword: number;
  project: number;
  priority: number;
  recency: number;
  /** `semantic` is present when semantic search is configured (EMBEDDINGS_URL). */
  weights: { keyword: number; project: number; priority: number; recency: number; semantic?: number | undefined };
  /** BM25 summed over the query's words, each by its best-matching term (weighted by how it matched). */
  bm25: number;
  /** With search words: the share of the query's words (IDF-weighted) the memory holds, 0–1. */
  coverage?: number;
  /** With search words: how close neighbouring query words stand in the memory, 0–1. */
  proximity?: number;
  /** With search words: which index term stood for each query word found, and how it matched. */
  matched?: Array<{ word: string; term: string; kind: 'exact' | 'joined' | 'synonym' | 'prefix' | 'typo' }>;
  /** With search words: question and filler words left out of the search. */
  ignored?: string[];
  /** Semantic search configured: the semantic part (cosine similarity clamped to 0–1). */
  semantic?: number;
  /** Semantic search configured: the memory's cosine similarity to the query, when it has a vector. */
  similarity?: number;
  /** Semantic search configured: whether vectors took part, or the provider was down (keyword ranking). */
  vector_search?: 'used' | 'unavailable';
}

/**
 * A memory in a list: with a search, its score (and with `explain=true`, how it was made). `truncated` marks
 * a preview in an answer with a budget (its text cut, ending with "…"): read the memory for the whole.
 */
export interface RankedMemory extends Memory {
  score?: number;
  score_parts?: ScoreParts;
  truncated?: true;
}

/** `GET /memories`: with `search`, ranked; `project_name` takes its descendants too. */
export type MemoryListParams = BudgetParams & {
  project_name?: string | undefined;
  category?: string | undefined;
  priority?: Priority | undefined;
  tag?: string[] | undefined;
  search?: string | undefined;
  explain?: boolean | undefined;
  /** Also expired and superseded memories. */
  include_expired?: boolean | undefined;
  /** Only expired and superseded memories. */
  stale?: boolean | undefined;
};

export interface MemoryList extends PageInfo {
  memories: RankedMemory[];
  /** The `cursor` that continues after the last memory shown; null at the end. */
  next_cursor: string | null;
}

export interface MemoryWritten extends Memory {
  message: string;
}

/** A similar memory of the same project, named by a create (docs/api.md "Duplicates on write"). */
export interface PossibleDuplicate {
  memory_id: string;
  /** Jaccard similarity of the distinct analysed words, 0.7–1. */
  similarity: number;
}

/**
 * `POST /memories` (and `svc_create_memory`): 201 with the new memory, `possible_duplicates` when similar
 * ones exist; 200 with the stored identical memory and `deduped: true` (nothing created).
 */
export interface MemoryCreated extends MemoryWritten {
  deduped?: true;
  possible_duplicates?: PossibleDuplicate[];
}

/** `POST /memories?dedupe=false` creates even an identical memory and skips the similarity check. */
export interface CreateMemoryParams {
  dedupe?: boolean;
}

export interface CreateMemoryInput {
  text: string;
  project_name?: string | null;
  metadata?: Record<string, unknown>;
  /** ISO 8601 with a zone; or `ttl_seconds`, not both. */
  expires_at?: string;
  ttl_seconds?: number;
  pinned?: boolean;
  /** Older memories (yours) this one replaces. */
  supersedes?: string[];
}

/**
 * A partial update; `metadata` is a JSON Merge Patch (RFC 7396) of the stored metadata; `expires_at: null`
 * removes the expiry; `supersedes` replaces the memory's links (`[]` removes them).
 */
export interface UpdateMemoryInput {
  text?: string;
  project_name?: string | null;
  metadata?: Record<string, unknown>;
  expires_at?: string | null;
  ttl_seconds?: number;
  pinned?: boolean;
  supersedes?: string[];
}

/** One version in a memory's history list (`GET /memories/{id}/versions`): its text as a preview. */
export interface MemoryVersionSummary {
  version: number;
  /** Whether this is the memory as it is now (the first of the list). */
  current: boolean;
  project_name: string | null;
  /** The first 200 characters of the text. */
  text_preview: string;
  text_length: number;
  created_at: string;
}

export interface MemoryVersion {
  memory_id: string;
  version: number;
  current: boolean;
  text: string;
  project_name: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
}

export interface MemoryVersionList extends PageInfo {
  versions: MemoryVersionSummary[];
  next_cursor: string | null;
}

export interface RestoreMemoryInput {
  version: number;
}

/** `POST /memories/{id}/restore`: the memory as it now is and its new version. */
export interface MemoryRestored extends MemoryWritten {
  version: number;
}

// --- Artifacts --------------------------------------------------------------------------------------------

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

/** A list item: the summary, or its preview in an answer with a budget (`truncated`: read it for the whole). */
export interface ArtifactListItem extends ArtifactSummary {
  truncated?: true;
}

/** `GET /artifacts`: `project` takes its descendants too. */
export type ArtifactListParams = BudgetParams & {
  project?: string | undefined;
  label?: string[] | undefined;
  content_type?: string | undefined;
  search?: string | undefined;
};

export interface ArtifactList extends PageInfo {
  artifacts: ArtifactListItem[];
  /** The `cursor` that continues after the last artifact shown; null at the end. */
  next_cursor: string | null;
}

export interface ArtifactWritten {
  id: string;
  project: string;
  slug: string;
  title: string;
  version: number;
  message: string;
}

export interface ArtifactVersionSummary {
  version: number;
  size_bytes: number;
  sha256: string;
  content_type: string;
  created_at: string;
  current: boolean;
}

export interface ArtifactVersion extends ArtifactVersionSummary {
  content: string;
}

export interface ArtifactVersionList extends PageInfo {
  versions: ArtifactVersionSummary[];
}

export interface CreateArtifactInput {
  project: string;
  title: string;
  content: string;
  slug?: string;
  description?: string | null;
  content_type?: string;
  labels?: string[];
  metadata?: Record<string, unknown>;
}

/** A partial update: the project and slug never change. */
export type UpdateArtifactInput = Partial<Omit<CreateArtifactInput, 'project' | 'slug'>>;

// --- Export and import ------------------------------------------------------------------------------------

export interface BundleCounts {
  prompts: number;
  memories: number;
  artifacts: number;
}

export interface ImportResult {
  dry_run: boolean;
  created: BundleCounts;
  updated: BundleCounts;
  unchanged: BundleCounts;
}

/** One change in the audit trail (`GET /api/v1/audit`, docs/api.md "Audit trail"). */
export interface AuditEvent {
  /** Position in the account's log: only grows, never reused. */
  seq: number;
  id: string;
  at: string;
  object_type: AuditObjectType;
  object_id: string;
  object_handle: string | null;
  action: AuditAction;
  surface: AuditSurface;
  key_id: string | null;
  integration: string | null;
  client_name: string | null;
  client_version: string | null;
  hash_before: string | null;
  hash_after: string | null;
}

export interface AuditList {
  events: AuditEvent[];
  per_page: number;
  /** `cursor` for the next (older) page; null at the end. */
  next_cursor: string | null;
}

export type AuditListParams = {
  object_type?: AuditObjectType | undefined;
  object_id?: string | undefined;
  action?: AuditAction | undefined;
  surface?: AuditSurface | undefined;
  key_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  per_page?: number | undefined;
  cursor?: string | undefined;
};
/** A webhook endpoint as listed: never its secret (docs/webhooks.md). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  /** Why it was disabled automatically (repeated failures), if it was. */
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

/** An endpoint as created or with a rotated secret: the only answers that carry the secret. */
export interface CreatedWebhook extends WebhookEndpoint {
  secret: string;
}

/** One attempt of the delivery log. */
export interface WebhookAttempt {
  event_id: string;
  event_type: string;
  attempt: number;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  attempted_at: string;
}

export interface WebhookAttemptPage {
  attempts: WebhookAttempt[];
  total: number;
  page: number;
  per_page: number;
}
