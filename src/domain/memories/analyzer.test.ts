import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze, analyzeMemory, termFrequencies } from './analyzer.js';
import { bm25 } from './ranking.js';

describe('analyze', () => {
  it('folds accents and case, splits on non-alphanumerics and stems English words', () => {
    expect(analyze('Caching CACHED caches: naïve Café — Straße 42x')).toEqual([
      'cach',
      'cach',
      'cach',
      'naiv',
      'cafe',
      'straße',
      '42x',
    ]);
    expect(analyze('tests testing tested')).toEqual(['test', 'test', 'test']);
    expect(analyze('')).toEqual([]);
    expect(analyze('--- !!! ...')).toEqual([]);
  });

  // Porter stemming is not idempotent (stem(stem(w)) may differ), so the contract that matters is that a
  // word analyses the same wherever it stands: in a memory's text and alone in a query.
  it('analyses a word the same alone and inside any text', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zA-Zà-ÿ0-9]{1,20}$/),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        (word, before, after) => {
          const alone = analyze(word);
          const inside = analyze(`${before} ${word} ${after}`);
          const text = ` ${inside.join(' ')} `;
          for (const token of alone) expect(text).toContain(` ${token} `);
        },
      ),
    );
  });

  it('only ever yields tokens of letters and digits, at most 64 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        for (const token of analyze(text)) {
          expect(token).toMatch(/^[\p{L}\p{N}]+$/u);
          expect(token.length).toBeLessThanOrEqual(64);
        }
      }),
    );
  });
});

describe('termFrequencies', () => {
  it('counts whole analysed tokens only', () => {
    const stored = ` ${analyze('cache cached caching cachet decache cache').join(' ')} `;
    expect(termFrequencies(stored, ['cach', 'cachet', 'decach', 'missing'])).toEqual([4, 1, 1, 0]);
  });

  it('agrees with counting the token list, for any text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'ab', 'ba', 'aa'), { maxLength: 60 }), (words) => {
        const stored = ` ${words.join(' ')} `;
        const terms = ['a', 'b', 'ab', 'aa'];
        expect(termFrequencies(stored, terms)).toEqual(terms.map((t) => words.filter((w) => w === t).length));
      }),
    );
  });
});

describe('bm25', () => {
  it('is 0 without matches and grows with term frequency, with diminishing returns', () => {
    expect(bm25([0], [10], 100, 10, 10)).toBe(0);
    const one = bm25([1], [10], 100, 10, 10);
    const two = bm25([2], [10], 100, 10, 10);
    const four = bm25([4], [10], 100, 10, 10);
    expect(one).toBeGreaterThan(0);
    expect(two).toBeGreaterThan(one);
    expect(four - two).toBeLessThan(two - one);
  });

  it('prefers shorter documents and rarer terms', () => {
    expect(bm25([1], [10], 100, 5, 10)).toBeGreaterThan(bm25([1], [10], 100, 50, 10));
    expect(bm25([1], [2], 100, 10, 10)).toBeGreaterThan(bm25([1], [90], 100, 10, 10));
  });

  it('stays positive even for a term in every document', () => {
    expect(bm25([1], [100], 100, 10, 10)).toBeGreaterThan(0);
  });

  it('adds up over terms', () => {
    const a = bm25([1, 0], [5, 20], 100, 10, 10);
    const b = bm25([0, 2], [5, 20], 100, 10, 10);
    expect(bm25([1, 2], [5, 20], 100, 10, 10)).toBeCloseTo(a + b, 12);
  });
});

describe('analyzeMemory', () => {
  it('analyses text, category and tags together, as analyze does, and answers a repeat with the same result', () => {
    const tokens = analyzeMemory('Caching tests', 'Standards', ['go', 'Lint']);
    expect(tokens).toEqual(analyze('Caching tests Standards go Lint'));
    expect(analyzeMemory('Caching tests', 'Standards', ['go', 'Lint'])).toBe(tokens);
    expect(Object.isFrozen(tokens)).toBe(true);
    expect(analyzeMemory('Caching tests', null, [])).toEqual(analyze('Caching tests'));
  });

  it('gives what analyze gives, remembered or not (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.option(fc.string({ maxLength: 10 }), { nil: null }),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
        (text, category, tags) => {
          const expected = analyze(`${text} ${category ?? ''} ${tags.join(' ')}`);
          expect(analyzeMemory(text, category, tags)).toEqual(expected);
          expect(analyzeMemory(text, category, tags)).toEqual(expected);
        },
      ),
    );
  });
});
