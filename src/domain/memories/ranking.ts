import type { Priority, ScoreParts } from './memory-schemas.js';

/**
 * Memory search ranking (docs/memory-search.md). Score = Σ weight × part, each part in [0, 1]:
 * - keyword: BM25 divided by the best BM25 among the candidates, so the best match scores 1 and the others
 *   the fraction of it they reach (relative, so it does not depend on the corpus's absolute BM25 scale);
 * - project: the searched project itself 1.0 > descendant 0.75 > nearest ancestor 0.5 (−0.05 per further
 *   level, at least 0.35) > global 0.25; with no project given every memory is in context (1.0);
 * - priority: high 1.0 > medium (or absent) 0.5 > low 0;
 * - recency: 1 / (1 + age / half-life), age since last access (else creation);
 * - semantic (only when embeddings are configured): the cosine similarity of the memory's vector to the
 *   query's, clamped to [0, 1]; 0 without a vector, or when the provider is down (keyword ranking).
 */
export interface RankingWeights {
  keyword: number;
  project: number;
  priority: number;
  recency: number;
  /** Present only when semantic search is configured (EMBEDDINGS_URL): without it scores are as before. */
  semantic?: number;
}

export interface RankingConfig {
  weights: RankingWeights;
  /** Age at which the recency part is 0.5. */
  recencyHalfLifeDays: number;
  /** Keyword matches looked at per search before ranking (see docs/memory-search.md). */
  candidateLimit: number;
}

export const DEFAULT_RANKING: RankingConfig = {
  weights: { keyword: 0.6, project: 0.1, priority: 0.15, recency: 0.05 },
  recencyHalfLifeDays: 30,
  candidateLimit: 500,
};

export const PROJECT_SCORES = {
  self: 1,
  descendant: 0.75,
  nearestAncestor: 0.5,
  ancestorStep: 0.05,
  minAncestor: 0.35,
  global: 0.25,
};

/** What ranking needs of a memory: no text, so candidate sets stay cheap. */
export interface RankingRow {
  seq: number;
  projectName: string | null;
  priority: Priority | null;
  /** Epoch ms of the last access, else of creation. */
  recencyMs: number;
  /** Raw keyword score (keyword-score.ts; higher is better); 0 without a search string. */
  bm25: number;
  /** Pinned memories come first among equal scores. */
  pinned?: boolean;
  /** Cosine similarity to the query's vector (semantic search), when known. */
  similarity?: number;
}

/** How a row's keyword score was made, for explain (keyword-score.ts). */
export interface KeywordDetail {
  bm25: number;
  coverage: number;
  proximity: number;
  matched: Array<{ word: string; term: string; kind: 'exact' | 'joined' | 'synonym' | 'prefix' | 'typo' }>;
  ignored: string[];
}

/** `bm25` relative to the best candidate's, `best` raised to at least `floor`; in [0, 1]. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * Okapi BM25 of one document for a query: `tf[i]` occurrences of term i, `df[i]` documents containing it,
 * `n` documents in all, `length` tokens in this document, `averageLength` over all documents. The IDF is
 * the non-negative variant ln(1 + (n − df + 0.5) / (df + 0.5)).
 */
export function bm25(
  tf: readonly number[],
  df: readonly number[],
  n: number,
  length: number,
  averageLength: number,
): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(averageLength, 1));
  let score = 0;
  for (let i = 0; i < tf.length; i++) {
    const f = tf[i] ?? 0;
    if (f === 0) continue;
    const d = Math.min(df[i] ?? 0, n);
    const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
    score += (idf * (f * (BM25_K1 + 1))) / (f + norm);
  }
  return score;
}

/** `bm25` relative to the best candidate's; in [0, 1]. */
export function keywordPart(bm25: number, best: number): number {
  return bm25 <= 0 || best <= 0 ? 0 : Math.min(1, bm25 / best);
}

export function priorityPart(priority: Priority | null): number {
  return priority === 'high' ? 1 : priority === 'low' ? 0 : 0.5;
}

export function recencyPart(recencyMs: number, nowMs: number, halfLifeDays: number): number {
  const ageDays = Math.max(0, nowMs - recencyMs) / 86_400_000;
  return 1 / (1 + ageDays / halfLifeDays);
}

/** Project proximity of `candidate` to the searched `project` (undefined = no project context). */
export function projectPart(candidate: string | null, project: string | undefined): number {
  if (project === undefined) return 1;
  if (candidate === null) return PROJECT_SCORES.global;
  if (candidate === project) return PROJECT_SCORES.self;
  if (candidate.startsWith(`${project}/`)) return PROJECT_SCORES.descendant;
  if (project.startsWith(`${candidate}/`)) {
    const distance = project.slice(candidate.length).split('/').length - 1;
    return Math.max(
      PROJECT_SCORES.minAncestor,
      PROJECT_SCORES.nearestAncestor - PROJECT_SCORES.ancestorStep * (distance - 1),
    );
  }
  // Not a candidate at all; callers filter these out before ranking.
  return 0;
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/**
 * A row's score: `exact` orders results, `score` and `parts` (rounded to 1e-6) are what clients see. Ordering
 * by the rounded score would let rounding decide ties: a memory read seconds ago differs from an unread
 * twin by ~1e-7 in recency, which rounding erases.
 */
export function scoreOf(
  row: RankingRow,
  context: {
    project: string | undefined;
    nowMs: number;
    bestBm25: number;
    /** Whether vectors took part (semantic search configured): 'unavailable' when the provider was down. */
    vectors?: 'used' | 'unavailable';
  },
  config: RankingConfig,
  detail?: KeywordDetail,
): { score: number; exact: number; parts: ScoreParts } {
  const parts = {
    keyword: keywordPart(row.bm25, context.bestBm25),
    project: projectPart(row.projectName, context.project),
    priority: priorityPart(row.priority),
    recency: recencyPart(row.recencyMs, context.nowMs, config.recencyHalfLifeDays),
  };
  const w = config.weights;
  const semantic = w.semantic === undefined ? undefined : semanticPart(row.similarity);
  const score =
    w.keyword * parts.keyword +
    w.project * parts.project +
    w.priority * parts.priority +
    w.recency * parts.recency +
    (semantic === undefined ? 0 : (w.semantic ?? 0) * semantic);
  return {
    score: round(score),
    exact: score,
    parts: {
      keyword: round(parts.keyword),
      project: round(parts.project),
      priority: parts.priority,
      recency: round(parts.recency),
      weights: { ...w },
      bm25: round(detail ? detail.bm25 : row.bm25),
      ...(detail && {
        coverage: round(detail.coverage),
        proximity: round(detail.proximity),
        matched: detail.matched,
        ignored: detail.ignored,
      }),
      ...(semantic !== undefined && {
        semantic: round(semantic),
        ...(row.similarity !== undefined && { similarity: round(row.similarity) }),
        vector_search: context.vectors ?? 'used',
      }),
    },
  };
}

/** The semantic part: cosine similarity clamped to [0, 1] (opposite or unrelated vectors add nothing). */
export function semanticPart(similarity: number | undefined): number {
  return similarity === undefined || !Number.isFinite(similarity) ? 0 : Math.min(1, Math.max(0, similarity));
}

/**
 * Result order: the unrounded score, then pinned before not pinned, then the more recent access (last access,
 * else creation), then the newer row (`seq`, the insertion order), so equal memories always come in the same
 * order.
 */
export function compareRanked(
  a: { exact: number; row: Pick<RankingRow, 'recencyMs' | 'seq' | 'pinned'> },
  b: { exact: number; row: Pick<RankingRow, 'recencyMs' | 'seq' | 'pinned'> },
): number {
  return (
    b.exact - a.exact ||
    Number(b.row.pinned ?? false) - Number(a.row.pinned ?? false) ||
    b.row.recencyMs - a.row.recencyMs ||
    b.row.seq - a.row.seq
  );
}
