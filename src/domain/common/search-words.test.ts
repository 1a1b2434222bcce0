import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.js';
import {
  leadingSearch,
  parseSearchWords,
  SEARCH_MAX_LENGTH,
  SEARCH_MAX_WORD_LENGTH,
  SEARCH_MAX_WORDS,
  SEARCH_MESSAGES,
  type SearchWordKind,
  searchWords,
} from './search-words.js';

const KINDS: SearchWordKind[] = ['letters', 'whitespace'];

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
};

const hostile = fc.oneof(
  fc.string({ maxLength: 2000 }),
  fc.string({ unit: 'binary', maxLength: 1200 }),
  fc.string({ unit: 'grapheme', maxLength: 600 }),
  fc.string({ unit: fc.constantFrom('a', 'A', ' ', '\t', '-', 'İ', 'ß', '\u0301', '😀', '\u0000'), maxLength: 1100 }),
);

describe.each(KINDS)('searchWords (%s)', (kind) => {
  it('de-duplicates case-insensitively, first occurrence first', () => {
    expect(searchWords('b a B c A b', kind)).toEqual(['b', 'a', 'c']);
    expect(searchWords(undefined, kind)).toEqual([]);
    expect(searchWords('', kind)).toEqual([]);
    expect(searchWords('   ', kind)).toEqual([]);
  });

  it(`accepts ${SEARCH_MAX_WORDS} distinct words however often repeated, and refuses one more`, () => {
    const words = Array.from({ length: SEARCH_MAX_WORDS + 1 }, (_, i) => `w${i}`);
    const allowed = words.slice(0, SEARCH_MAX_WORDS);
    expect(searchWords([...allowed, ...allowed, ...allowed].join(' '), kind)).toEqual(allowed);
    const error = refusal(() => searchWords(words.join(' '), kind));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details).toEqual({ search: SEARCH_MESSAGES.words });
  });

  it(`refuses a word longer than ${SEARCH_MAX_WORD_LENGTH} characters and a search longer than ${SEARCH_MAX_LENGTH}`, () => {
    expect(searchWords('x'.repeat(SEARCH_MAX_WORD_LENGTH), kind)).toEqual(['x'.repeat(SEARCH_MAX_WORD_LENGTH)]);
    const long = refusal(() => searchWords(`ok ${'x'.repeat(SEARCH_MAX_WORD_LENGTH + 1)}`, kind));
    expect((long as ValidationError).details).toEqual({ search: SEARCH_MESSAGES.wordLength });
    expect(searchWords(' '.repeat(SEARCH_MAX_LENGTH), kind)).toEqual([]);
    const tooLong = refusal(() => searchWords(' '.repeat(SEARCH_MAX_LENGTH + 1), kind));
    expect((tooLong as ValidationError).details).toEqual({ search: SEARCH_MESSAGES.length });
  });

  it('never throws on arbitrary strings: either bounded distinct words or a refusal message', () => {
    fc.assert(
      fc.property(hostile, (input) => {
        const result = parseSearchWords(input, kind);
        if (!result.ok) {
          expect(Object.values(SEARCH_MESSAGES)).toContain(result.message);
          return;
        }
        expect(result.words.length).toBeLessThanOrEqual(SEARCH_MAX_WORDS);
        expect(new Set(result.words).size).toBe(result.words.length);
        for (const word of result.words) {
          expect(word.length).toBeGreaterThan(0);
          expect(word.length).toBeLessThanOrEqual(SEARCH_MAX_WORD_LENGTH);
          expect(word).toBe(word.toLowerCase());
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is linear: over-long input is refused by its length before it is split', () => {
    // A megabyte of distinct words: refused for its length (checked first), not after splitting it.
    const huge = Array.from({ length: 100_000 }, (_, i) => `w${i}`).join(' ');
    expect(parseSearchWords(huge, kind)).toEqual({ ok: false, message: SEARCH_MESSAGES.length });
    // At the bound, the worst cases (all separators, all distinct one-letter words) are one pass each.
    for (const input of [
      '-'.repeat(SEARCH_MAX_LENGTH),
      'a'.repeat(SEARCH_MAX_LENGTH),
      Array.from({ length: 500 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(' '),
    ]) {
      const result = parseSearchWords(input, kind);
      expect(result.ok || (Object.values(SEARCH_MESSAGES) as string[]).includes(result.message)).toBe(true);
    }
  });
});

describe('searchWords kinds', () => {
  it('letters: runs of letters and digits, NFC-composed; query syntax is a separator', () => {
    expect(searchWords('"exact phrase" OR a* b:c', 'letters')).toEqual(['exact', 'phrase', 'or', 'a', 'b', 'c']);
    expect(searchWords('nai\u0308ve Straße', 'letters')).toEqual(['naïve', 'straße']);
  });

  it('whitespace: whitespace-separated pieces kept whole, punctuation included', () => {
    expect(searchWords('  foo-bar  50%\tA_b ', 'whitespace')).toEqual(['foo-bar', '50%', 'a_b']);
  });
});

describe('leadingSearch', () => {
  it('is always a search the bounds accept, made of the text’s leading distinct words', () => {
    fc.assert(
      fc.property(hostile, fc.array(fc.constantFrom('the', 'a', 'x'), { maxLength: 3 }), (text, skipped) => {
        const skip = new Set<string>(skipped);
        const search = leadingSearch(text, skip);
        const parsed = parseSearchWords(search, 'letters');
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        expect(parsed.words.join(' ')).toBe(search);
        expect(parsed.words.some((word) => skip.has(word))).toBe(false);
        // The words come in the order the text has them.
        const all = (
          text
            .normalize('NFC')
            .toLowerCase()
            .match(/[\p{L}\p{N}]+/gu) ?? []
        ).filter((word) => word.length <= SEARCH_MAX_WORD_LENGTH && !skip.has(word));
        const firsts = [...new Set(all)];
        expect(parsed.words).toEqual(firsts.slice(0, parsed.words.length));
      }),
    );
  });

  it('stops at the word and length bounds instead of refusing', () => {
    const many = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ');
    expect(leadingSearch(many).split(' ')).toHaveLength(SEARCH_MAX_WORDS);
    const long = Array.from({ length: 30 }, (_, i) => `${'w'.repeat(60)}${i}`).join(' ');
    expect(leadingSearch(long).length).toBeLessThanOrEqual(SEARCH_MAX_LENGTH);
    expect(leadingSearch(`${'z'.repeat(SEARCH_MAX_WORD_LENGTH + 1)} Fix the Retry`, new Set(['the']))).toBe(
      'fix retry',
    );
  });
});
