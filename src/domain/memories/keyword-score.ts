import type { MatchKind } from './query-analysis.js';
import { BM25_B, BM25_K1 } from './ranking.js';

/**
 * The keyword score of one memory for an analysed query (docs/memory-search.md, *The keyword part*):
 *
 *   raw = bm25 × (1 − C + C × coverage) × (1 + P × proximity)
 *
 * - bm25: Okapi BM25 summed over the query's concepts, each concept counting once, by the best of its
 *   index terms (its stem, a joined form, a synonym, a prefix completion or a typo correction), weighted by
 *   how the term was found (KEYWORD_TUNING.weights).
 * - coverage: the share of the query's concepts (weighted by IDF) the memory holds: a memory with every
 *   meaningful word beats one that repeats a single word.
 * - proximity: for each pair of neighbouring concepts in the query, 1 when the memory has them next to each
 *   other or one word apart ("roll back", "back a bad"), falling to 0 at KEYWORD_TUNING.window words apart;
 *   averaged over the pairs.
 *
 * The keyword part is then raw divided by the best raw among the candidates (ranking.ts).
 */
export const KEYWORD_TUNING = {
  /** How much a term counts by how it was found (exact stem 1). */
  weights: { exact: 1, joined: 1, synonym: 0.7, typo: 0.8, prefix: 0.5 } as Record<MatchKind, number>,
  /** C in the formula: 0 ignores coverage, 1 scales the score by it entirely. */
  coverage: 0.3,
  /** P in the formula: the most a perfect proximity adds (0.3 = 30 %). */
  proximity: 0.3,
  /** Words apart at which neighbouring query words no longer count as near. */
  window: 8,
};
/** Occurrences of a term looked at for proximity: bounded work on long memories. */
const MAX_POSITIONS = 32;
/** Characters looked across to measure a distance in words; farther is "not near". */
const MAX_SPAN = 400;

export interface WeightedTerm {
  term: string;
  kind: MatchKind;
  /** Memories of the user holding it. */
  documents: number;
}

export interface ScoredConcept {
  word: string;
  terms: WeightedTerm[];
}

export interface KeywordMatch {
  word: string;
  term: string;
  kind: MatchKind;
}

export interface KeywordScore {
  raw: number;
  bm25: number;
  coverage: number;
  proximity: number;
  matched: KeywordMatch[];
}

export interface CorpusStatistics {
  documents: number;
  averageLength: number;
}

export const idf = (documents: number, n: number): number => {
  const d = Math.min(documents, n);
  return Math.log(1 + (n - d + 0.5) / (d + 0.5));
};

/** Character offsets of ` term ` in the analysed text (at most MAX_POSITIONS), and how many there are. */
function occurrences(analysed: string, term: string): { count: number; at: number[] } {
  const needle = ` ${term} `;
  const at: number[] = [];
  let count = 0;
  for (let i = analysed.indexOf(needle); i !== -1; i = analysed.indexOf(needle, i + needle.length - 1)) {
    count++;
    if (at.length < MAX_POSITIONS) at.push(i);
  }
  return { count, at };
}

/** Words between two offsets of the analysed text (1 = neighbours), or Infinity beyond MAX_SPAN. */
function wordDistance(analysed: string, a: number, b: number): number {
  const [from, to] = a < b ? [a, b] : [b, a];
  if (to - from > MAX_SPAN) return Number.POSITIVE_INFINITY;
  let spaces = 0;
  for (let i = from + 1; i <= to; i++) if (analysed.charCodeAt(i) === 32) spaces++;
  return spaces;
}

/**
 * How near the closest occurrences of two terms stand: the pair closest in characters is found first
 * (cheap arithmetic over at most MAX_POSITIONS² pairs), then its distance in words is counted once.
 */
function nearness(analysed: string, left: number[], right: number[]): number {
  let gap = Number.POSITIVE_INFINITY;
  let from = 0;
  let to = 0;
  for (const a of left) {
    for (const b of right) {
      const d = Math.abs(a - b);
      if (d < gap) {
        gap = d;
        from = a;
        to = b;
      }
    }
  }
  const words = wordDistance(analysed, from, to);
  // Neighbours, or one word apart (often a filler word the query left out: "roll back a bad deploy").
  const window = KEYWORD_TUNING.window;
  if (words <= 2) return 1;
  return words >= window ? 0 : (window - words) / (window - 2);
}

/** Scores one memory (`analysed` = its `search_terms`, ` tok tok `; `length` = its token count). */
export function keywordScore(
  concepts: readonly ScoredConcept[],
  corpus: CorpusStatistics,
  analysed: string,
  length: number,
): KeywordScore {
  const n = Math.max(corpus.documents, 1);
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(corpus.averageLength, 1));
  let bm25 = 0;
  let held = 0;
  let possible = 0;
  const matched: KeywordMatch[] = [];
  const positions: Array<number[] | undefined> = [];
  for (const concept of concepts) {
    let best = 0;
    let bestTerm: WeightedTerm | undefined;
    let bestAt: number[] | undefined;
    let conceptIdf = 0;
    // An alternative never counts for more than the word itself would: a rarer synonym's higher IDF must
    // not lift a memory above one holding the very word ("release" vs a memory saying "deploys").
    let wordIdf = Number.POSITIVE_INFINITY;
    for (const term of concept.terms) {
      if (term.kind === 'exact' && term.documents > 0) wordIdf = Math.min(wordIdf, idf(term.documents, n));
    }
    for (const term of concept.terms) {
      const termIdf = term.kind === 'exact' ? idf(term.documents, n) : Math.min(idf(term.documents, n), wordIdf);
      if (term.kind === 'exact' || term.documents > 0) conceptIdf = Math.max(conceptIdf, termIdf);
      const { count, at } = occurrences(analysed, term.term);
      if (count === 0) continue;
      const value = (KEYWORD_TUNING.weights[term.kind] * termIdf * (count * (BM25_K1 + 1))) / (count + norm);
      if (value > best) {
        best = value;
        bestTerm = term;
        bestAt = at;
      }
    }
    possible += conceptIdf;
    positions.push(bestAt);
    if (!bestTerm) continue;
    bm25 += best;
    held += conceptIdf;
    matched.push({ word: concept.word, term: bestTerm.term, kind: bestTerm.kind });
  }
  const coverage = possible > 0 ? held / possible : 0;
  let proximity = 0;
  if (concepts.length > 1) {
    let sum = 0;
    for (let i = 1; i < concepts.length; i++) {
      const left = positions[i - 1];
      const right = positions[i];
      if (left && right) sum += nearness(analysed, left, right);
    }
    proximity = sum / (concepts.length - 1);
  }
  const { coverage: c, proximity: p } = KEYWORD_TUNING;
  const raw = bm25 * (1 - c + c * coverage) * (1 + p * proximity);
  return { raw, bm25, coverage, proximity, matched };
}
