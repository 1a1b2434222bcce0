import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../common/errors.js';
import { searchTerms } from './memory-service.js';

const TERM = /^[\p{L}\p{N}]+$/u;

const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      '9',
      ' ',
      '-',
      '"',
      '*',
      ':',
      '(',
      ')',
      '^',
      '+',
      "'",
      'é',
      'ß',
      'İ',
      'ﬁ',
      '²',
      '\u0301',
      '\u200b',
      '中',
      '😀',
      '\u0000',
      '\n',
    ),
  }),
);

describe('searchTerms', () => {
  it('lowercases and splits on anything that is not a letter or digit', () => {
    expect(searchTerms('Hello, World!')).toEqual(['hello', 'world']);
    expect(searchTerms('foo-bar_baz.qux/quux')).toEqual(['foo', 'bar', 'baz', 'qux', 'quux']);
    expect(searchTerms('  TypeScript\tstrict\nmode  ')).toEqual(['typescript', 'strict', 'mode']);
    expect(searchTerms('v2 ES2023')).toEqual(['v2', 'es2023']);
  });

  it('keeps words with non-ASCII letters whole', () => {
    expect(searchTerms('Straße')).toEqual(['straße']);
    expect(searchTerms('naïve café')).toEqual(['naïve', 'café']);
    // Decomposed input (i + combining diaeresis) is composed first and stays one word.
    expect(searchTerms('nai\u0308ve')).toEqual(['naïve']);
    expect(searchTerms('Ünïcödé ΑΒΓ мир 日本語')).toEqual(['ünïcödé', 'αβγ', 'мир', '日本語']);
  });

  it('drops full-text query syntax characters', () => {
    expect(searchTerms('"exact phrase" OR a* NOT b:c (d) ^e +f -g')).toEqual([
      'exact',
      'phrase',
      'or',
      'a',
      'not',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
    ]);
  });

  it('removes duplicates, keeping the first occurrence order', () => {
    expect(searchTerms('b a B c A b')).toEqual(['b', 'a', 'c']);
    expect(searchTerms('Go go GO gopher')).toEqual(['go', 'gopher']);
  });

  it('returns no terms for empty or separator-only input', () => {
    for (const input of ['', ' ', '   ', '!?-', '"*"', '\n\t', '\u0301']) expect(searchTerms(input), input).toEqual([]);
  });

  it('accepts up to 32 distinct words and refuses more with a validation error naming search', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    expect(searchTerms(words.slice(0, 32).join(' '))).toEqual(words.slice(0, 32));
    // Duplicates do not use up the budget.
    const repeated = words
      .slice(0, 32)
      .flatMap((w) => [w, w.toUpperCase()])
      .join(' ');
    expect(searchTerms(repeated)).toEqual(words.slice(0, 32));
    const refused = (() => {
      try {
        searchTerms(words.slice(0, 33).join(' '));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).details).toEqual({ search: 'Search must have at most 32 distinct words' });
  });

  it('returns distinct, non-empty, lowercase terms of letters and digits only, at most 32, or refuses', () => {
    fc.assert(
      fc.property(anyString, (input) => {
        let terms: string[];
        try {
          terms = searchTerms(input);
        } catch (error) {
          // Only the documented refusal, never anything else.
          expect(error).toBeInstanceOf(ValidationError);
          return;
        }
        expect(terms.length).toBeLessThanOrEqual(32);
        expect(new Set(terms).size).toBe(terms.length);
        for (const term of terms) {
          expect(term.length).toBeGreaterThan(0);
          expect(TERM.test(term), JSON.stringify(term)).toBe(true);
          expect(term).toBe(term.toLowerCase());
        }
      }),
    );
  });

  it('returns every distinct word of a query made of letter/digit words and separators, in order', () => {
    const word = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'X', 'Y', '1', '2', 'é', 'ß', 'ж', '中'),
      minLength: 1,
      maxLength: 4,
    });
    const separator = fc.string({
      unit: fc.constantFrom(' ', '-', ',', '"', '*', '\n', '.'),
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(fc.array(word, { maxLength: 50 }), separator, (words, sep) => {
        const expected = [...new Set(words.map((w) => w.toLowerCase()))];
        if (expected.length <= 32) expect(searchTerms(words.join(sep))).toEqual(expected);
        else expect(() => searchTerms(words.join(sep))).toThrow(ValidationError);
      }),
    );
  });
});
