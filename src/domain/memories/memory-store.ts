import type { Page } from '../common/pagination.js';
import type { Priority } from './memory-schemas.js';
import type { RankingRow } from './ranking.js';

export interface MemoryRecord {
  id: string;
  userId: string;
  text: string;
  projectName: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  lastAccessedAt: string | null;
}

/** Filters on the known metadata keys; every given one must hold. */
export interface MemoryFilter {
  category?: string;
  priority?: Priority;
  tags: string[];
}

/** The search candidate set for a project: itself, its descendants, its ancestors and global memories. */
export interface ProjectScope {
  project: string;
  ancestors: string[];
}

export interface KeywordQuery extends MemoryFilter {
  /**
   * The search's words (lowercased, letters and digits only); a memory matches when any one occurs in its
   * text, category or tags. Each database applies its own analysis (stemming) to them.
   */
  words: string[];
  scope?: ProjectScope;
  /** Narrow to high-priority memories, or to the scope's own project (extra candidate streams). */
  only?: 'high' | 'project';
  limit: number;
  /**
   * Candidates the caller already holds (by `seq`): the store may leave them out of its answer, so their
   * rows are not read twice. They still count toward `limit`.
   */
  known?: ReadonlySet<number>;
}

export interface ContextQuery extends MemoryFilter {
  scope?: ProjectScope;
  /** Enough rows to fill the requested page after ranking. */
  limit: number;
}

export interface MemoryAccess {
  userId: string;
  id: string;
  at: string;
}

export type MemoryPatch = Partial<Pick<MemoryRecord, 'text' | 'projectName' | 'metadata'>>;

export interface MemoryStore {
  insert(memory: MemoryRecord): Promise<void>;
  /** All or none, in one transaction. */
  insertMany(memories: readonly MemoryRecord[]): Promise<void>;
  findById(userId: string, id: string): Promise<MemoryRecord | undefined>;
  /** Returns false when the memory does not exist for this user. */
  update(userId: string, id: string, patch: MemoryPatch, updatedAt: string): Promise<boolean>;
  delete(userId: string, id: string): Promise<boolean>;
  /** Newest `updated_at` first; `projectTree` = that project and its descendants. */
  list(
    userId: string,
    query: MemoryFilter & { projectTree?: string; offset: number; limit: number },
  ): Promise<Page<MemoryRecord>>;
  /** Keyword matches, most recently created first, at most `limit`, each with its BM25. */
  keywordCandidates(userId: string, query: KeywordQuery): Promise<RankingRow[]>;
  countKeywordMatches(userId: string, query: Omit<KeywordQuery, 'limit' | 'only'>): Promise<number>;
  /**
   * For searches without words: the most recently used `limit` memories of every (project, priority)
   * group in the scope. Within a group only recency differs, so the best `limit` overall are among them.
   */
  contextCandidates(userId: string, query: ContextQuery): Promise<RankingRow[]>;
  countContext(userId: string, query: Omit<ContextQuery, 'limit'>): Promise<number>;
  /** Full records for ranked rows, in no particular order. */
  findBySeq(userId: string, seqs: number[]): Promise<Array<MemoryRecord & { seq: number }>>;
  /** Applies a batch of accesses (latest time wins). */
  recordAccess(accesses: readonly MemoryAccess[]): Promise<void>;
}
