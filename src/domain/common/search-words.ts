import { ValidationError } from './errors.js';

/**
 * Search words for every search (memories, artifacts, prompts; REST, MCP and dashboard alike), bounded so
 * that no search string can make a query with an unbounded number of conditions: each distinct word
 * becomes one index phrase or one LIKE condition. Bounds are checked in an order that keeps the work
 * linear: the string's length before anything else looks at it, then one pass to split.
 */
export const SEARCH_MAX_LENGTH = 1000;
export const SEARCH_MAX_WORDS = 32;
export const SEARCH_MAX_WORD_LENGTH = 100;

/** The messages are shared with the schemas (`search` bound), so REST and MCP say exactly the same. */
export const SEARCH_MESSAGES = {
  length: 'Search must be at most 1,000 characters',
  words: `Search must have at most ${SEARCH_MAX_WORDS} distinct words`,
  wordLength: `Search words must be at most ${SEARCH_MAX_WORD_LENGTH} characters each`,
} as const;

/**
 * How a search string is split:
 * - `letters`: runs of letters and digits, NFC-composed and lowercased (the full-text indexes' words:
 *   memories and artifacts); punctuation and query syntax are separators.
 * - `whitespace`: whitespace-separated pieces, lowercased (prompts match each as a substring).
 */
export type SearchWordKind = 'letters' | 'whitespace';

export type SearchWordsResult = { ok: true; words: string[] } | { ok: false; message: string };

const LETTER_RUNS = /[\p{L}\p{N}]+/gu;
const WHITESPACE = /\s+/;

/** Splits and checks a search string; never throws. `undefined` and blank strings give no words. */
export function parseSearchWords(search: string | undefined, kind: SearchWordKind): SearchWordsResult {
  if (search === undefined) return { ok: true, words: [] };
  if (search.length > SEARCH_MAX_LENGTH) return { ok: false, message: SEARCH_MESSAGES.length };
  const pieces =
    kind === 'letters'
      ? (search.normalize('NFC').toLowerCase().match(LETTER_RUNS) ?? [])
      : search.toLowerCase().split(WHITESPACE);
  const words = new Set<string>();
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    if (piece.length > SEARCH_MAX_WORD_LENGTH) return { ok: false, message: SEARCH_MESSAGES.wordLength };
    words.add(piece);
    if (words.size > SEARCH_MAX_WORDS) return { ok: false, message: SEARCH_MESSAGES.words };
  }
  return { ok: true, words: [...words] };
}

/**
 * The distinct words of a search, first occurrence first; a search over the bounds is a 400
 * `validation_error` naming `search` (on every surface: services call this, not the transports).
 */
export function searchWords(search: string | undefined, kind: SearchWordKind): string[] {
  const result = parseSearchWords(search, kind);
  if (!result.ok) throw new ValidationError({ search: result.message });
  return result.words;
}

/**
 * A search made of the leading words of a longer text (a task description): runs of letters and digits as
 * `letters` splits them, each at most SEARCH_MAX_WORD_LENGTH (longer runs are skipped), distinct, none of
 * `skip`, as many as fit SEARCH_MAX_WORDS and SEARCH_MAX_LENGTH, joined by spaces. Never refuses: the text is
 * a description, not a query, so what does not fit is left out. `text` must be bounded by the caller.
 */
export function leadingSearch(text: string, skip: ReadonlySet<string> = new Set()): string {
  const words: string[] = [];
  const seen = new Set<string>();
  let length = 0;
  for (const piece of text.normalize('NFC').toLowerCase().match(LETTER_RUNS) ?? []) {
    if (piece.length > SEARCH_MAX_WORD_LENGTH || seen.has(piece) || skip.has(piece)) continue;
    const added = length === 0 ? piece.length : piece.length + 1;
    if (length + added > SEARCH_MAX_LENGTH) break;
    seen.add(piece);
    words.push(piece);
    length += added;
    if (words.length === SEARCH_MAX_WORDS) break;
  }
  return words.join(' ');
}
