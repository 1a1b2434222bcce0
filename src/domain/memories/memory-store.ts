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
   * Index terms (analysed by analyzer.ts and expanded by query-analysis.ts, distinct); a memory matches
   * when any one occurs among the analysed words of its text, category and tags.
   */
  terms: string[];
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

/** A keyword match as ranking reads it: the ranking row and its analysed words (no raw text). */
export interface KeywordCandidate extends Omit<RankingRow, 'bm25'> {
  /** Analysed tokens of text, category and tags in order, ` tok tok ` (a space at each end). */
  searchTerms: string;
  tokenCount: number;
}

/** BM25's statistics, over the searching user's own memories only. */
export interface TermStatistics {
  documents: number;
  averageLength: number;
  /** Memories holding each asked term, in the order asked (0 = not in the user's vocabulary). */
  frequencies: number[];
}

export interface VocabularyTerm {
  term: string;
  documents: number;
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
  /**
   * Inserts `memory` unless the user already has one with the same project and normalised text
   * (dedupe.ts): then nothing is written and that one (the first stored such) is returned. Atomic: of
   * concurrent identical creates exactly one inserts.
   */
  insertUnlessDuplicate(memory: MemoryRecord): Promise<MemoryRecord | undefined>;
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
  /** Keyword matches, most recently created first, at most `limit`, with their analysed words. */
  keywordCandidates(userId: string, query: KeywordQuery): Promise<KeywordCandidate[]>;
  countKeywordMatches(userId: string, query: Omit<KeywordQuery, 'limit' | 'only'>): Promise<number>;
  /** The user's memory count, average analysed length and each term's document count (may be a minute old). */
  termStatistics(userId: string, terms: readonly string[]): Promise<TermStatistics>;
  /**
   * Up to `limit` of the user's index terms that start with `prefix` (and are longer), taken in term order
   * from the first `scan` such terms, most frequent first: bounded whatever the vocabulary.
   */
  termsWithPrefix(userId: string, prefix: string, limit: number, scan: number): Promise<VocabularyTerm[]>;
  /**
   * For searches without words: the most recently used `limit` memories of every (project, priority)
   * group in the scope. Within a group only recency differs, so the best `limit` overall are among them.
   */
  contextCandidates(userId: string, query: ContextQuery): Promise<RankingRow[]>;
  countContext(userId: string, query: Omit<ContextQuery, 'limit'>): Promise<number>;
  /** The ids of the user's memories with these `seq`s (no text read), in no particular order. */
  idsBySeq(userId: string, seqs: readonly number[]): Promise<Array<{ id: string; seq: number }>>;
  /** Full records for ranked rows, in no particular order. */
  findBySeq(userId: string, seqs: number[]): Promise<Array<MemoryRecord & { seq: number }>>;
  /** Applies a batch of accesses (latest time wins). */
  recordAccess(accesses: readonly MemoryAccess[]): Promise<void>;
}
