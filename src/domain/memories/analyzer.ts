import { stemmer } from 'stemmer';

/**
 * Text analysis for memory search, used for indexing, for queries and for counting term frequencies,
 * so the three always agree: Unicode NFKD with accents removed, lowercased, split into runs of letters
 * and digits, and ASCII words reduced to their Porter stem ("caching" → "cach", "tests" → "test").
 */
const TOKEN = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /^[a-z]+$/;
const MAX_TOKEN = 64;

export function analyze(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const tokens = folded.match(TOKEN) ?? [];
  return tokens.map((token) => {
    const short = token.length > MAX_TOKEN ? token.slice(0, MAX_TOKEN) : token;
    return ASCII_WORD.test(short) ? stemmer(short) : short;
  });
}

/**
 * Term frequencies of `terms` in an analysed text stored as ` token token … ` (a space at each end), by
 * native substring search: no re-analysis, microseconds per document.
 */
export function termFrequencies(analysed: string, terms: readonly string[]): number[] {
  return terms.map((term) => {
    const needle = ` ${term} `;
    let count = 0;
    for (let at = analysed.indexOf(needle); at !== -1; at = analysed.indexOf(needle, at + needle.length - 1)) count++;
    return count;
  });
}

/** Memories analysed lately: a create analyses its memory twice (duplicate checks, then the insert). */
const recentMemoryTokens = new Map<string, readonly string[]>();
const RECENT_MEMORY_TOKENS = 64;
/** Longer inputs are analysed each time: what is kept stays within 64 × 32 KiB. */
const MAX_REMEMBERED_INPUT = 32_768;

/**
 * A memory's analysed words, as it is indexed and compared (`memories.search_terms`): its text, category and
 * tags analysed together. The last 64 results are kept (by the analysed input, up to 32 KiB), so the
 * duplicate checks of a create and its insert analyse the text once. The result is frozen: it may be shared.
 */
export function analyzeMemory(text: string, category: string | null, tags: readonly string[]): readonly string[] {
  const input = `${text} ${category ?? ''} ${tags.join(' ')}`;
  if (input.length > MAX_REMEMBERED_INPUT) return Object.freeze(analyze(input));
  const known = recentMemoryTokens.get(input);
  if (known) return known;
  const tokens = Object.freeze(analyze(input));
  if (recentMemoryTokens.size >= RECENT_MEMORY_TOKENS) {
    const oldest = recentMemoryTokens.keys().next().value;
    if (oldest !== undefined) recentMemoryTokens.delete(oldest);
  }
  recentMemoryTokens.set(input, tokens);
  return tokens;
}
