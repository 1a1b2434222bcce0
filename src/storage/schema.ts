import type { Generated } from 'kysely';

/**
 * Row types as Kysely sees them. One schema serves SQLite and PostgreSQL: timestamps are ISO 8601
 * UTC text (same order as time, same format as the API), booleans are 0/1 on SQLite and boolean on
 * PostgreSQL, JSON is text on SQLite and jsonb on PostgreSQL; `codec.ts` reads both.
 */
type Bool = number | boolean;
type Json = string | unknown;
type Count = number | string | bigint;

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string | null;
  tier: string;
  rate_limit: number | null;
  is_admin: Bool;
  created_at: string;
  updated_at: string;
  /** Adds one with every write of the user's prompts (migration 0021): validates prompts kept in memory. */
  prompts_stamp: Generated<Count>;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  integrations: Json;
  legacy: Bool;
  created_at: string;
  last_used_at: string | null;
  request_count: Generated<Count>;
  revoked_at: string | null;
}

export interface UsageHourlyTable {
  key_id: string;
  user_id: string;
  hour_start: string;
  request_count: Count;
}

export interface PromptsTable {
  id: string;
  user_id: string;
  slug: string;
  title: string;
  description: string;
  content: string;
  /** Lowercased title, description and content joined by newlines, for case-insensitive term search. */
  search_text: string;
  status: string;
  available_in_mcp: Bool;
  labels: Json;
  /** The current version (prompt_versions holds every version, this one included). */
  version: number;
  variable_schema: Json;
  created_at: string;
  updated_at: string;
}

/** Immutable snapshots: one per change of title, description, content, labels or variable schema. */
export interface PromptVersionsTable {
  prompt_id: string;
  user_id: string;
  version: number;
  title: string;
  description: string;
  content: string;
  labels: Json;
  variable_schema: Json;
  commit_message: string | null;
  created_at: string;
}

/** Named pointers (environments) from a prompt to one of its versions. */
export interface PromptEnvironmentsTable {
  prompt_id: string;
  user_id: string;
  name: string;
  version: number;
  marketplace: Bool;
  updated_at: string;
}

/** The reference graph: each prompt's referenced slugs (targets may not exist). */
export interface PromptReferencesTable {
  prompt_id: string;
  user_id: string;
  target_slug: string;
}

export interface PromptLabelsTable {
  prompt_id: string;
  user_id: string;
  label: string;
}

export interface MemoriesTable {
  seq: Generated<Count>;
  id: string;
  user_id: string;
  text: string;
  project_name: string | null;
  category: string | null;
  priority: string | null;
  priority_rank: number;
  tags_text: string;
  metadata: Json;
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
  recency_ms: Count;
  search_terms: string;
  token_count: number;
  /** dedupe.ts's key of the project and normalised text (migration 0009); indexed with user_id. */
  text_key: string | null;
  /** Lifecycle (migration 0010): when the memory expires, whether pinned, the memory that replaced it. */
  expires_at: string | null;
  pinned: Generated<Bool>;
  superseded_by: string | null;
  /** NULL = visible forever; else hidden from search, lists and context from this time (memory-store.ts). */
  visible_until: string | null;
  /** The current version's number (migration 0011); previous versions are in memory_versions. */
  version: Generated<number>;
  /** When the current version was written; null on rows from before 0011 (read as updated_at). */
  version_created_at: string | null;
}

/** A previous version of a memory: a snapshot of its content columns (migration 0011). */
export interface MemoryVersionsTable {
  memory_id: string;
  user_id: string;
  version: number;
  text: string;
  project_name: string | null;
  metadata: Json;
  created_at: string;
}

export interface MemoryTagsTable {
  memory_id: string;
  user_id: string;
  tag: string;
}

/** SQLite only: the contentless FTS5 index of memories (rowid = memories.seq). */
export interface MemoriesFtsTable {
  rowid: number;
  owner: string;
  scope: string;
  prio: string;
  text: string;
  category: string;
  tags: string;
}

/** SQLite only: document frequency per term (fts5vocab 'row'). */
export interface MemoriesFtsVocabTable {
  term: string;
  doc: number;
  cnt: number;
}

export interface ArtifactsTable {
  seq: Generated<Count>;
  id: string;
  user_id: string;
  project: string;
  slug: string;
  title: string;
  description: string;
  content: string;
  content_type: string;
  labels: Json;
  metadata: Json;
  size_bytes: Count;
  sha256: string;
  version: number;
  version_created_at: string;
  created_at: string;
  updated_at: string;
}

export interface ArtifactLabelsTable {
  artifact_id: string;
  user_id: string;
  label: string;
}

export interface ArtifactVersionsTable {
  artifact_id: string;
  user_id: string;
  version: number;
  content: string;
  content_type: string;
  size_bytes: Count;
  sha256: string;
  created_at: string;
}

/** SQLite only: the contentless FTS5 index of artifacts (rowid = artifacts.seq). */
export interface ArtifactsFtsTable {
  rowid: number;
  owner: string;
  title: string;
  description: string;
  content: string;
}

export interface SessionsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export interface InvitesTable {
  code_hash: string;
  created_by: string;
  created_at: string;
  used_by: string | null;
  used_at: string | null;
}

/** Each user's memory count and total token count, for BM25 over the user's own memories. */
export interface MemorySearchStatsTable {
  user_id: string;
  documents: number;
  tokens: Count;
}

/**
 * SQLite only: a random value per user that every change to one of the user's memories replaces (triggers,
 * migration 0022), and the value before the last change. What the near-duplicate check's in-memory
 * windows are checked against (dialects/sqlite/recent-memories.ts).
 */
export interface MemoryStampsTable {
  user_id: string;
  stamp: number;
  previous: number | null;
}

/** PostgreSQL only: each user's index terms with their document counts (SQLite reads fts5vocab). */
export interface MemoryTermsTable {
  user_id: string;
  term: string;
  documents: number;
}

/**
 * PostgreSQL only (migration 0020): one row per distinct analysed term of a memory, walked newest first per
 * (user, term) by the keyword candidate streams; `high` and `project_name` mirror the memory's.
 */
export interface MemoryPostingsTable {
  user_id: string;
  term: string;
  seq: number;
  high: boolean;
  project_name: string | null;
}

/** The audit trail and ordered event log (migration 0013): one row per change, never updated. */
export interface AuditEventsTable {
  seq: Generated<Count>;
  id: string;
  user_id: string;
  at: string;
  object_type: string;
  object_id: string;
  object_handle: string | null;
  action: string;
  key_id: string | null;
  integration: string | null;
  surface: string;
  client_name: string | null;
  client_version: string | null;
  hash_before: string | null;
  hash_after: string | null;
}

/** Webhook endpoints (issue 19): the secret signs deliveries, so it is kept (never shown after creation). */
export interface WebhookEndpointsTable {
  id: string;
  user_id: string;
  url: string;
  description: string;
  secret: string;
  events: Json;
  enabled: Bool;
  disabled_reason: string | null;
  consecutive_failures: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** One row per (endpoint, event type): the enqueue's indexed join. */
export interface WebhookSubscriptionsTable {
  endpoint_id: string;
  user_id: string;
  event_type: string;
}

/** The durable outbox: one delivery per (event, endpoint), leased by one dispatcher at a time. */
export interface WebhookDeliveriesTable {
  seq: Generated<Count>;
  event_id: string;
  endpoint_id: string;
  user_id: string;
  event_type: string;
  payload: string;
  status: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
}

/** The delivery log: one row per attempt. */
export interface WebhookAttemptsTable {
  seq: Generated<Count>;
  delivery_seq: Count;
  endpoint_id: string;
  user_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  attempted_at: string;
}

/**
 * Semantic search (migration 0015): one vector per memory, in a named space. `vector`: float32 little-endian
 * bytes, or on PostgreSQL with pgvector (migration 0016) pgvector's `vector`, written in its text form.
 */
export interface MemoryEmbeddingsTable {
  memory_seq: Count;
  user_id: string;
  model: string;
  dimensions: number;
  text_hash: string;
  source_updated_at: string;
  vector: Uint8Array | string | null;
  error: string | null;
}

export interface Schema {
  memory_embeddings: MemoryEmbeddingsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  audit_events: AuditEventsTable;
  sessions: SessionsTable;
  invites: InvitesTable;
  artifacts: ArtifactsTable;
  artifact_labels: ArtifactLabelsTable;
  artifact_versions: ArtifactVersionsTable;
  artifacts_fts: ArtifactsFtsTable;
  memories_fts_vocab: MemoriesFtsVocabTable;
  memories_fts: MemoriesFtsTable;
  memory_search_stats: MemorySearchStatsTable;
  memory_stamps: MemoryStampsTable;
  memory_terms: MemoryTermsTable;
  memory_postings: MemoryPostingsTable;
  memories: MemoriesTable;
  memory_tags: MemoryTagsTable;
  memory_versions: MemoryVersionsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  usage_hourly: UsageHourlyTable;
  prompts: PromptsTable;
  prompt_labels: PromptLabelsTable;
  prompt_versions: PromptVersionsTable;
  prompt_references: PromptReferencesTable;
  prompt_environments: PromptEnvironmentsTable;
}
