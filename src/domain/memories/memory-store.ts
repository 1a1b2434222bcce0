import type { Change } from '../common/audit.js';
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
  /** Lifecycle (docs/api.md "Expiry, supersede and pin"); absent = not expiring, not pinned, not superseded. */
  expiresAt?: string | null;
  pinned?: boolean;
  /** The newer memory (same user) that replaces this one. */
  supersededBy?: string | null;
  /** Derived by the store: hidden from searches, lists and the context from this time; null = visible. */
  visibleUntil?: string | null;
}

/** A memory's visibility as the store derives it: pinned never hides; else the earlier of expiry and supersession. */
export function visibleUntil(memory: {
  pinned?: boolean | undefined;
  expiresAt?: string | null | undefined;
  supersededAt?: string | null | undefined;
}): string | null {
  if (memory.pinned) return null;
  const times = [memory.expiresAt, memory.supersededAt].filter((t): t is string => typeof t === 'string');
  return times.length === 0 ? null : times.reduce((a, b) => (a < b ? a : b));
}

/** Filters on the known metadata keys; every given one must hold. */
export interface MemoryFilter {
  category?: string;
  priority?: Priority;
  tags: string[];
  /** Only memories visible at this time (ISO): not expired, not superseded, or pinned. */
  visibleAt?: string;
  /** Only memories hidden at this time (the "stale" list: expired or superseded). */
  hiddenAt?: string;
  /** Only pinned (true) or only unpinned (false) memories. */
  pinned?: boolean;
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

/**
 * The near-duplicate check's candidates (dedupe.ts): the `limit` most recent of the user's memories in
 * `project` (null: in any project) visible at `visibleAt` that hold any of `terms` — a KeywordQuery with
 * the project as its only scope.
 */
export interface NearDuplicateQuery {
  terms: readonly string[];
  project: string | null;
  visibleAt: string;
  limit: number;
}

export interface NearDuplicateCandidate {
  seq: number;
  projectName: string | null;
  /** Analysed tokens as stored (` tok tok `). */
  searchTerms: string;
  /** The memory's id, when the store had it at hand (else the check reads the ids it answers). */
  id?: string;
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

export type MemoryPatch = Partial<Pick<MemoryRecord, 'text' | 'projectName' | 'metadata' | 'expiresAt' | 'pinned'>>;

/**
 * `supersedes` of a write: the ids of the user's memories the written one replaces. All must be the user's
 * (else NotFoundError, nothing written). On update the list replaces the memory's current links (`[]`
 * removes them all, bringing those memories back); on create they are added.
 */
export interface SupersedeLinks {
  supersedes?: readonly string[];
}

/**
 * One version of a memory, whole: the current one (the memory row) or a kept previous one. A snapshot of the
 * fields a version keeps; a field added to memories later is added here (and to memory_versions) too.
 */
export interface MemoryVersionRecord {
  version: number;
  text: string;
  projectName: string | null;
  metadata: Record<string, unknown>;
  /** When this version was written. */
  createdAt: string;
}

/** A version as its list reads it: the text only as its first MEMORY_VERSION_PREVIEW_CHARS characters. */
export interface MemoryVersionSummaryRecord extends Omit<MemoryVersionRecord, 'text' | 'metadata'> {
  textPreview: string;
  textLength: number;
}

/** How an update keeps history (memory-history.ts). */
export interface MemoryHistoryWrite {
  /** Previous versions kept per memory (0 keeps none); older ones are pruned, a bounded few per write. */
  keep: number;
  /** Make a new version even when nothing changes (a restore). */
  force?: boolean;
}

/** The outcome of an update: the memory's version after it, or false when the memory does not exist. */
export type MemoryUpdateOutcome = false | { version: number };

/**
 * Writes take the change (`Change`: origin and time) and append one audit row per changed memory in the
 * same transaction; a dedupe hit writes nothing and appends nothing.
 */
export interface MemoryStore {
  insert(memory: MemoryRecord, change: Change, links?: SupersedeLinks): Promise<void>;
  /**
   * Inserts `memory` unless the user already has one with the same project and normalised text
   * (dedupe.ts): then nothing is written and that one (the first stored such) is returned. Atomic: of
   * concurrent identical creates exactly one inserts.
   */
  insertUnlessDuplicate(
    memory: MemoryRecord,
    change: Change,
    links?: SupersedeLinks,
  ): Promise<MemoryRecord | undefined>;
  /**
   * insertUnlessDuplicate with the near-duplicate check's candidates (`near`, when given) read in the same
   * transaction, before the insert: the check and the write see the same memories, and on SQLite the create
   * stays in its group transaction (storage/memory-store.ts). The candidates come back whether or not it
   * inserted (none without `near`).
   */
  insertChecked(
    memory: MemoryRecord,
    change: Change,
    links: SupersedeLinks | undefined,
    near: NearDuplicateQuery | undefined,
  ): Promise<{ existing: MemoryRecord | undefined; candidates: NearDuplicateCandidate[] }>;
  /** All or none, in one transaction. */
  insertMany(memories: readonly MemoryRecord[], change: Change): Promise<void>;
  findById(userId: string, id: string): Promise<MemoryRecord | undefined>;
  /**
   * Applies `patch` in one transaction. A change of text, project or metadata (or `history.force`) makes a
   * new version: the previous state is kept as a version row (one insert) unless `history.keep` is 0, and
   * versions beyond `keep` are pruned, at most a few per write. Returns false when the memory does not exist
   * for this user.
   */
  update(
    userId: string,
    id: string,
    patch: MemoryPatch,
    updatedAt: string,
    change: Change,
    links?: SupersedeLinks,
    history?: MemoryHistoryWrite,
  ): Promise<MemoryUpdateOutcome>;
  delete(userId: string, id: string, change: Change): Promise<boolean>;
  /**
   * Sets (or with null removes) the link of the user's memory `id` to the newer memory that replaced it, and
   * its visibility; a `supersededBy` that is not the user's memory, or is `id` itself, removes the link
   * (bundle import restores links this way).
   */
  setSupersededBy(userId: string, id: string, supersededBy: string | null): Promise<void>;
  /**
   * The current version and one page of the kept versions (newest first) with their count, or undefined
   * when the memory does not exist for this user.
   */
  versions(
    userId: string,
    id: string,
    page: { offset: number; limit: number },
  ): Promise<{ current: MemoryVersionSummaryRecord; kept: MemoryVersionSummaryRecord[]; total: number } | undefined>;
  /**
   * Version `version` of the memory (from the memory row when it is the current one) and the current
   * version's number; undefined when the memory does not exist for this user.
   */
  findVersion(
    userId: string,
    id: string,
    version: number,
  ): Promise<{ currentVersion: number; found: MemoryVersionRecord | undefined } | undefined>;
  /** Newest `updated_at` first; `projectTree` = that project and its descendants. */
  list(
    userId: string,
    query: MemoryFilter & { projectTree?: string; offset: number; limit: number },
  ): Promise<Page<MemoryRecord>>;
  /** Keyword matches, most recently created first, at most `limit`, with their analysed words. */
  keywordCandidates(userId: string, query: KeywordQuery): Promise<KeywordCandidate[]>;
  countKeywordMatches(userId: string, query: Omit<KeywordQuery, 'limit' | 'only'>): Promise<number>;
  /** The near-duplicate check's candidates, newest first (NearDuplicateQuery). */
  nearDuplicateCandidates(userId: string, query: NearDuplicateQuery): Promise<NearDuplicateCandidate[]>;
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
