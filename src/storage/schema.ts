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

/** PostgreSQL only: each user's index terms with their document counts (SQLite reads fts5vocab). */
export interface MemoryTermsTable {
  user_id: string;
  term: string;
  documents: number;
}

export interface Schema {
  sessions: SessionsTable;
  invites: InvitesTable;
  artifacts: ArtifactsTable;
  artifact_labels: ArtifactLabelsTable;
  artifact_versions: ArtifactVersionsTable;
  artifacts_fts: ArtifactsFtsTable;
  memories_fts_vocab: MemoriesFtsVocabTable;
  memories_fts: MemoriesFtsTable;
  memory_search_stats: MemorySearchStatsTable;
  memory_terms: MemoryTermsTable;
  memories: MemoriesTable;
  memory_tags: MemoryTagsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  usage_hourly: UsageHourlyTable;
  prompts: PromptsTable;
  prompt_labels: PromptLabelsTable;
  prompt_versions: PromptVersionsTable;
  prompt_references: PromptReferencesTable;
}
