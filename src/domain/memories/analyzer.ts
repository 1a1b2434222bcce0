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
