import type { Expression, ExpressionBuilder, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type {
  ContextQuery,
  KeywordQuery,
  NearDuplicateCandidate,
  NearDuplicateQuery,
  TermStatistics,
  VocabularyTerm,
} from '../../domain/memories/memory-store.js';
import type { MigrationDialect } from '../migrations/index.js';
import type { Schema } from '../schema.js';
import type { ContextRow } from './memory-context.js';

/**
 * Everything that differs between the databases Cairn runs on, as one object per database
 * (dialects/sqlite, dialects/postgres). Stores and the copy take it from the `Database` they are given;
 * nothing outside `storage/` asks which database it is.
 */
export interface SqlDialect {
  /** The migrations' own parameter: migrations are frozen and keep their own dialect switch. */
  readonly migrations: MigrationDialect;
  /** For messages to operators ("PostgreSQL without REDIS_URL…"). */
  readonly displayName: string;
  /** Several server instances may share this database, so per-instance state (rate-limit counters) must be shared too. */
  readonly multiInstance: boolean;
  /**
   * Each query is a round trip to a database server (PostgreSQL), so the same lookup asked by several
   * requests in one turn of the event loop is worth asking once for all (domain/common/turn-batch.ts).
   * SQLite answers in the calling thread: batching would only delay it.
   */
  readonly roundTrips: boolean;

  /** `column` names a strict descendant of `project` (`project/…`), exactly (case-sensitive) and index-friendly. */
  descendantOf(column: string, project: string): RawBuilder<boolean>;
  /** Memory full-text search over `db` (built once per database: it may cache statistics). */
  memorySearch(db: Kysely<Schema>): MemorySearch;
  readonly artifactSearch: ArtifactSearch;
  /**
   * Similarity search over `memory_embeddings` (optional semantic search), for the way this database holds
   * vectors (PostgreSQL: pgvector's type where migration 0016 converted the column, else `bytea`). Asked
   * once, after migrations: use `Database.vectorSearch()`, which also loads what the database needs first.
   */
  vectorSearch(db: Kysely<Schema>): Promise<VectorSearch>;

  /** A value as another database's driver returned it, as this database takes it (`storage copy`). */
  storable(value: unknown): unknown;
  /** Work after rows were copied in bulk: sequences moved on, indexes the database does not keep itself rebuilt. */
  afterCopy(db: Kysely<Schema>): Promise<void>;

  /**
   * The rows a claim subquery selects, locked against other claimers, skipping rows another transaction holds
   * (PostgreSQL `FOR UPDATE SKIP LOCKED`); SQLite has one writer at a time, so the single UPDATE is the lock.
   */
  skipLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;

  /** A unique or primary-key constraint refused the write. */
  isUniqueViolation(error: unknown): boolean;
  /** The database cannot be reached (or is restarting, or busy): a 503 the client may retry, not a 500. */
  isUnavailable(error: unknown): boolean;
}

/**
 * Nearest vectors of one user in one space (model and dimensions): the dialect-specific half of semantic
 * search. Similarity is cosine, in [-1, 1].
 */
export interface VectorSearch {
  /** How vectors are compared, for operators' logs: `sqlite-vec`, `pgvector`, `bytea` (in the application). */
  readonly method: 'sqlite-vec' | 'pgvector' | 'bytea';
  /** Whether `nearest` looks at every vector of the user (else only the `scan` newest memories'). */
  readonly exhaustive: boolean;
  /**
   * A vector as `memory_embeddings.vector` takes it; null when this database cannot hold it (pgvector: more
   * than 16,000 dimensions, or a value float32 cannot hold): the store records a failure instead.
   */
  encode(vector: Float32Array): Uint8Array | string | null;
  nearest(
    db: Kysely<Schema>,
    userId: string,
    space: { model: string; dimensions: number },
    vector: Float32Array,
    limit: number,
    scan: number,
  ): Promise<Array<{ seq: number; similarity: number }>>;
  similarities(
    db: Kysely<Schema>,
    userId: string,
    space: { model: string; dimensions: number },
    vector: Float32Array,
    seqs: readonly number[],
  ): Promise<Map<number, number>>;
}

/** The dialect-specific half of artifact search: keeping the full-text index and the match condition. */
export interface ArtifactSearch {
  index(
    trx: Kysely<Schema>,
    artifact: { seq: number; userId: string; title: string; description: string; content: string },
  ): Promise<void>;
  unindex(trx: Kysely<Schema>, seq: number): Promise<void>;
  /** Every word occurs in the title, description or content of `artifacts`. */
  matchesAll(userId: string, words: string[]): RawBuilder<boolean>;
}

/**
 * Dialect-specific parts of memory search, behind one interface: keeping the full-text index in step,
 * the keyword-candidate query and its count. Everything else in the memory store is shared SQL.
 */
export interface IndexedMemory {
  seq: number;
  userId: string;
  projectName: string | null;
  priority: string | null;
  /** Analysed tokens of text, category and tags as stored in `memories.search_terms` (` tok tok `). */
  searchTerms: string;
  tokenCount: number;
}

/** A new memory's row as the recent memories keep it. */
export interface InsertedMemory {
  seq: number;
  id: string;
  user_id: string;
  project_name: string | null;
  visible_until: string | null;
  search_terms: string;
}

export interface KeywordRow {
  seq: unknown;
  /** PostgreSQL's rows carry the memory's id (a near-duplicate check then needs no read of ids). */
  id?: string;
  project_name: string | null;
  priority: string | null;
  recency_ms: unknown;
  pinned: unknown;
  search_terms: string;
  token_count: unknown;
}

export type MemoryFilterApplier = (eb: ExpressionBuilder<Schema, 'memories'>) => Expression<SqlBool>;

export interface MemorySearch {
  /**
   * Adds or replaces a memory in the full-text index (and its owner's search statistics); runs inside the
   * write's transaction. `previous` is the replaced version's analysed words, project and priority, when
   * there was one.
   */
  index(
    trx: Kysely<Schema>,
    memory: IndexedMemory,
    previous?: { tokenCount: number; searchTerms: string; projectName: string | null; priority: string | null },
  ): Promise<void>;
  /**
   * Optional, where every statement is a round trip (PostgreSQL): what `index` writes for NEW memories of one
   * user, as data-modifying parts of the create's one statement (one-statement-create.ts), each a `[name,
   * statement]` CTE that reads the new rows from the create's insert, named `m` (which returns `seq`, `id`,
   * `user_id`, `search_terms`, `priority` and `project_name`). Any value may be a precompiled statement's
   * marker (an array is one parameter): `terms` the distinct words of them all, sorted, and `counts` how
   * many of the memories hold each; `documents` the number of memories and `tokens` their analysed lengths.
   */
  newMemoryParts?(memories: {
    userId: string;
    terms: readonly string[];
    counts: readonly number[];
    documents: number;
    tokens: number;
  }): [name: string, statement: RawBuilder<unknown>][];
  unindex(
    trx: Kysely<Schema>,
    memory: { seq: number; userId: string; tokenCount: number; searchTerms: string },
  ): Promise<void>;
  /**
   * `memories.user_id = userId` for lookups by primary key: on SQLite written so the planner keeps to the
   * primary key instead of walking the user's index.
   */
  sameOwner(eb: ExpressionBuilder<Schema, 'memories'>, userId: string): Expression<SqlBool>;
  /** `project_name` is a strict descendant of `project`, exactly (case-sensitive) and index-friendly. */
  descendantOf(eb: ExpressionBuilder<Schema, 'memories'>, project: string): Expression<SqlBool>;
  keywordCandidates(
    db: Kysely<Schema>,
    userId: string,
    query: KeywordQuery,
    filter: MemoryFilterApplier,
  ): Promise<KeywordRow[]>;
  /**
   * Optional (PostgreSQL): keywordCandidates' statement itself, undefined when there are no words, for a
   * caller that sends it together with others (a checked create's first message, memory-store.ts).
   */
  keywordCandidatesQuery?(
    db: Kysely<Schema>,
    userId: string,
    query: KeywordQuery,
    filter: MemoryFilterApplier,
  ): RawBuilder<KeywordRow> | undefined;
  countKeywordMatches(
    db: Kysely<Schema>,
    userId: string,
    query: Omit<KeywordQuery, 'limit' | 'only'>,
    filter: MemoryFilterApplier,
  ): Promise<number>;
  /**
   * The automatic context's candidates (MemoryStore.contextCandidates): per project group of the scope
   * and priority rank, the `limit` most recent rows that pass `filter`.
   */
  contextCandidates(
    db: Kysely<Schema>,
    userId: string,
    query: ContextQuery,
    filter: MemoryFilterApplier,
  ): Promise<ContextRow[]>;
  /**
   * Optional: the near-duplicate check's candidates (MemoryStore.nearDuplicateCandidates) from memory, or
   * `undefined` when they cannot be answered exactly that way (SQLite: sqlite/recent-memories.ts).
   */
  recentCandidates?(
    db: Kysely<Schema>,
    userId: string,
    query: NearDuplicateQuery,
  ): Promise<NearDuplicateCandidate[] | undefined>;
  /**
   * Optional: a memory just inserted, inside its transaction, right after its row and before any other
   * change to the user's memories in that transaction (sqlite/recent-memories.ts).
   */
  inserted?(trx: Kysely<Schema>, memory: InsertedMemory): Promise<void>;
  /** The user's own BM25 statistics (MemoryStore.termStatistics). */
  termStatistics(db: Kysely<Schema>, userId: string, terms: readonly string[]): Promise<TermStatistics>;
  /** The user's terms with a prefix, bounded (MemoryStore.termsWithPrefix). */
  termsWithPrefix(
    db: Kysely<Schema>,
    userId: string,
    prefix: string,
    limit: number,
    scan: number,
  ): Promise<VocabularyTerm[]>;
}
