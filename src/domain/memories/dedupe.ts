import { hash } from 'node:crypto';
import { analyzeMemory } from './analyzer.js';
import type { MemoryStore, NearDuplicateCandidate, NearDuplicateQuery } from './memory-store.js';

/**
 * Duplicates on write (issue 18, item 4; docs/api.md "Duplicates"). Deterministic, no model, nothing deleted:
 * an exact duplicate is answered with the memory already stored, a near duplicate is created and named.
 *
 * Normalised text: Unicode NFC, lowercased, every run of white space one space, trimmed, and a trailing
 * run of `.`, `!`, `?`, `;`, `:`, `,` or `…` removed. "Use tabs." and " use  TABS " are the same memory;
 * "Use tabs" and "Use tab" are not (that is a near duplicate).
 */
export function normalizeForDedupe(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[.!?;:,…]+$/u, '')
    .trimEnd();
}

/**
 * The exact-duplicate key of a memory: a SHA-256 of its project and normalised text (stored per memory and
 * indexed with the user, so the check is one index lookup whatever the text's length).
 */
export function dedupeKey(text: string, projectName: string | null): string {
  const project = projectName === null ? '\u0000' : `p${projectName}`;
  return hash('sha256', `${project}\u0000${normalizeForDedupe(text)}`, 'base64url');
}

/** Jaccard similarity of two memories' distinct analysed words at or above this is a near duplicate. */
export const NEAR_DUPLICATE_THRESHOLD = 0.7;
/** Analysed characters of each memory compared (`search_terms`, both sides): bounded work per create. */
export const NEAR_DUPLICATE_TEXT_CHARS = 20_000;
/** At most this many distinct words of the new memory are searched for. */
const SEARCH_TERMS = 8;
/** Candidates read (the most recent matching any searched word) and near duplicates answered. */
const CANDIDATES = 20;
const ANSWERED = 5;

export interface PossibleDuplicate {
  memory_id: string;
  /** Jaccard similarity of the distinct analysed words, 0–1, rounded to 3 decimals. */
  similarity: number;
}

/** A memory's distinct analysed words within its first NEAR_DUPLICATE_TEXT_CHARS (` tok tok `, as stored). */
export function comparedTerms(searchTerms: string): Set<string> {
  const terms = new Set(searchTerms.slice(0, NEAR_DUPLICATE_TEXT_CHARS).split(' '));
  terms.delete('');
  return terms;
}

/** The analysed words of a memory to be created, as the store will index them (text, category, tags). */
function memoryTerms(text: string, metadata: Record<string, unknown>): Set<string> {
  const category = typeof metadata.category === 'string' ? metadata.category : null;
  const tags = Array.isArray(metadata.tags) ? metadata.tags.filter((t): t is string => typeof t === 'string') : [];
  return comparedTerms(` ${analyzeMemory(text, category, tags).join(' ')} `);
}

/**
 * How many of a memory's `count` distinct words a near duplicate may lack: a memory sharing Jaccard ≥ t of
 * the union lacks at most (1 − t) · count of them (|x ∖ y| = |x| − |x ∩ y| ≤ |x| − t · |x ∪ y| ≤ (1 − t) · |x|).
 */
export function missableTerms(count: number): number {
  return Math.floor(count * (1 - NEAR_DUPLICATE_THRESHOLD) + 1e-9);
}

/**
 * The words to search for: one more than a near duplicate may lack (missableTerms), so every memory with
 * similarity ≥ 0.7 holds at least one of them, up to SEARCH_TERMS (memories of up to 26 distinct words are
 * then found for certain; each word searched costs a lookup in every segment of the keyword index). The
 * longest (ties in text order), as a stand-in for the rarest. Not the user's document frequencies: those
 * are cached for a minute per process on SQLite, so the words of a memory written seconds ago would read
 * as absent, and a write would fill the search's cache.
 */
export function distinctiveTerms(terms: ReadonlySet<string>): string[] {
  return [...terms]
    .map((term, index) => ({ term, index }))
    .sort((a, b) => b.term.length - a.term.length || a.index - b.index)
    .slice(0, Math.min(SEARCH_TERMS, missableTerms(terms.size) + 1))
    .map((t) => t.term);
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * The distinct words each candidate compares (`comparedTerms(c.searchTerms)`), remembered per candidate
 * object while it lives: a store that keeps recent memories in memory hands out the same objects check
 * after check (storage/dialects/sqlite/recent-memories.ts), and looking up words whose hashes V8 already
 * holds costs a tenth of splitting and hashing the text again. Only for short texts (most memories): a long
 * one is split at each comparison, so what is remembered stays within a few times the text kept anyway.
 */
const comparedWords = new WeakMap<NearDuplicateCandidate, readonly string[]>();
const REMEMBERED_WORDS_CHARS = 2_000;

function wordsOf(candidate: NearDuplicateCandidate): readonly string[] {
  const known = comparedWords.get(candidate);
  if (known !== undefined) return known;
  const words = [...comparedTerms(candidate.searchTerms)];
  if (candidate.searchTerms.length <= REMEMBERED_WORDS_CHARS) comparedWords.set(candidate, words);
  return words;
}

/** `jaccard(terms, comparedTerms(candidate.searchTerms))`, each candidate's distinct words remembered. */
export function similarityTo(terms: ReadonlySet<string>): (candidate: NearDuplicateCandidate) => number {
  return (candidate) => {
    const words = wordsOf(candidate);
    let shared = 0;
    for (const word of words) if (terms.has(word)) shared++;
    const union = terms.size + words.length - shared;
    return union === 0 ? 0 : shared / union;
  };
}

/**
 * What a new memory's near-duplicate check asks the store for: its most distinctive words
 * (distinctiveTerms) select at most CANDIDATES memories of its project (the keyword index, most recent
 * first), visible at `visibleAt`; `undefined` when it has no words. `terms` are its distinct analysed words,
 * which rankNearDuplicates compares the candidates with.
 */
export function nearDuplicateSearch(
  memory: { text: string; projectName: string | null; metadata: Record<string, unknown> },
  visibleAt: string,
): { terms: ReadonlySet<string>; query: NearDuplicateQuery } | undefined {
  const terms = memoryTerms(memory.text, memory.metadata);
  const searched = distinctiveTerms(terms);
  if (searched.length === 0) return undefined;
  return { terms, query: { terms: searched, project: memory.projectName, visibleAt, limit: CANDIDATES } };
}

/**
 * The near duplicates among the candidates: each compared by Jaccard similarity of distinct analysed words
 * (those of another project, which a global memory's search also returns, left out), at most ANSWERED,
 * most similar first. A memory with similarity 0.7 or more holds one of the words searched when the new
 * memory has up to 26 distinct words, and almost always otherwise. Bounded: NEAR_DUPLICATE_TEXT_CHARS per
 * side, and one read of at most ANSWERED ids (none when the store answered the candidates with their ids).
 */
export async function rankNearDuplicates(
  store: MemoryStore,
  userId: string,
  search: { terms: ReadonlySet<string>; query: NearDuplicateQuery },
  candidates: readonly NearDuplicateCandidate[],
): Promise<PossibleDuplicate[]> {
  const similarity = similarityTo(search.terms);
  const near = candidates
    .filter((c) => c.projectName === search.query.project)
    .map((c) => ({ seq: c.seq, id: c.id, similarity: similarity(c) }))
    .filter((c) => c.similarity >= NEAR_DUPLICATE_THRESHOLD)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, ANSWERED);
  if (near.length === 0) return [];
  const unknown = near.filter((c) => c.id === undefined).map((c) => c.seq);
  const ids = new Map(unknown.length === 0 ? [] : (await store.idsBySeq(userId, unknown)).map((r) => [r.seq, r.id]));
  return near.flatMap((c) => {
    const id = c.id ?? ids.get(c.seq);
    return id === undefined ? [] : [{ memory_id: id, similarity: Math.round(c.similarity * 1000) / 1000 }];
  });
}
