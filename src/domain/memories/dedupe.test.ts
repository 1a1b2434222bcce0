import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  comparedTerms,
  dedupeKey,
  distinctiveTerms,
  jaccard,
  missableTerms,
  NEAR_DUPLICATE_TEXT_CHARS,
  NEAR_DUPLICATE_THRESHOLD,
  normalizeForDedupe,
  similarityTo,
} from './dedupe.js';

describe('normalizeForDedupe', () => {
  it('applies NFC, lowercases, collapses white space and drops trailing punctuation', () => {
    expect(normalizeForDedupe('  Use   TABS\tin Go.  ')).toBe('use tabs in go');
    expect(normalizeForDedupe('Use tabs in Go!?…')).toBe('use tabs in go');
    expect(normalizeForDedupe('Cafe\u0301')).toBe(normalizeForDedupe('Café'));
    expect(normalizeForDedupe('a.b, c')).toBe('a.b, c');
    expect(normalizeForDedupe('...')).toBe('');
  });

  it('is idempotent and ignores case and spacing (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const once = normalizeForDedupe(text);
        expect(normalizeForDedupe(once)).toBe(once);
        expect(normalizeForDedupe(` ${text.toUpperCase()}\n`)).toBe(normalizeForDedupe(text.toUpperCase()));
      }),
    );
  });
});

describe('dedupeKey', () => {
  it('is equal for texts that normalise alike, and differs by project', () => {
    expect(dedupeKey('Use tabs.', 'acme')).toBe(dedupeKey(' use  TABS', 'acme'));
    expect(dedupeKey('Use tabs', 'acme')).not.toBe(dedupeKey('Use tabs', null));
    expect(dedupeKey('Use tabs', 'acme')).not.toBe(dedupeKey('Use tabs', 'acme/web'));
    expect(dedupeKey('Use tabs', 'acme')).not.toBe(dedupeKey('Use tab', 'acme'));
  });

  it('separates project and text unambiguously (property)', () => {
    const project = fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null });
    fc.assert(
      fc.property(project, fc.string({ maxLength: 50 }), project, fc.string({ maxLength: 50 }), (p1, t1, p2, t2) => {
        if (p1 !== p2 || normalizeForDedupe(t1) !== normalizeForDedupe(t2)) {
          expect(dedupeKey(t1, p1)).not.toBe(dedupeKey(t2, p2));
        } else {
          expect(dedupeKey(t1, p1)).toBe(dedupeKey(t2, p2));
        }
      }),
    );
  });
});

describe('jaccard', () => {
  it('is symmetric, within 0–1, and 1 only for equal non-empty sets (property)', () => {
    const set = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 6 }).map((a) => new Set(a));
    fc.assert(
      fc.property(set, set, (a, b) => {
        const s = jaccard(a, b);
        expect(s).toBe(jaccard(b, a));
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(s === 1).toBe(a.size > 0 && a.size === b.size && [...a].every((x) => b.has(x)));
      }),
    );
    expect(jaccard(new Set(['use', 'tab']), new Set(['use', 'tab', 'go']))).toBeCloseTo(2 / 3);
  });
});

describe('distinctiveTerms', () => {
  // Words of 1–12 letters from a small alphabet, so sets share words and lengths tie.
  const word = fc.stringMatching(/^[a-d]{1,12}$/);

  it('searches one more word than a near duplicate may lack, at most 8', () => {
    const words = (n: number) => new Set(Array.from({ length: n }, (_, i) => `w${i}`));
    expect([1, 3, 4, 10, 20, 23, 26, 27, 100].map((n) => distinctiveTerms(words(n)).length)).toEqual([
      1, 1, 2, 4, 7, 7, 8, 8, 8,
    ]);
    expect(distinctiveTerms(new Set())).toEqual([]);
  });

  it('picks the longest words, ties in the order given', () => {
    expect(distinctiveTerms(new Set(['ab', 'abcd', 'xy', 'abc', 'wxyz', 'q', 'r', 's', 't', 'u']))).toEqual([
      'abcd',
      'wxyz',
      'abc',
      'ab',
    ]);
  });

  it('every set with similarity ≥ 0.7 holds a searched word when the memory has ≤ 26 words (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { minLength: 1, maxLength: 26 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.uniqueArray(word, { maxLength: 12 }),
        (xs, dropped, added) => {
          const x = new Set(xs);
          // y: x without some of its words, with some others: kept only when similar enough.
          const drop = new Set(dropped.map((i) => xs[i % xs.length]));
          const y = new Set([...xs.filter((w) => !drop.has(w)), ...added]);
          if (jaccard(x, y) < NEAR_DUPLICATE_THRESHOLD) return;
          expect(distinctiveTerms(x).some((w) => y.has(w))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a near duplicate lacks at most missableTerms of the memory’s words (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { minLength: 1, maxLength: 60 }),
        fc.uniqueArray(word, { maxLength: 60 }),
        (xs, ys) => {
          const x = new Set(xs);
          const y = new Set(ys);
          if (jaccard(x, y) < NEAR_DUPLICATE_THRESHOLD) return;
          expect(xs.filter((w) => !y.has(w)).length).toBeLessThanOrEqual(missableTerms(x.size));
        },
      ),
    );
  });
});

describe('comparedTerms', () => {
  it('reads the distinct words of a stored search_terms within the first characters compared', () => {
    expect([...comparedTerms(' use tab use go ')]).toEqual(['use', 'tab', 'go']);
    expect(comparedTerms(' ').size).toBe(0);
    const long = ` ${Array.from({ length: 5000 }, (_, i) => `t${i}`).join(' ')} `;
    const terms = comparedTerms(long);
    expect(terms.has('t0')).toBe(true);
    expect(terms.has('t4999')).toBe(false);
    expect([...terms].join(' ').length).toBeLessThanOrEqual(NEAR_DUPLICATE_TEXT_CHARS);
  });
});

describe('similarityTo', () => {
  const word = fc.constantFrom('use', 'tab', 'go', 'x', 'uses', 'tabs', '', 'a1');
  const stored = (words: string[]) => ` ${words.join(' ')} `;

  it('is the Jaccard similarity of the compared terms, for candidates seen once or again', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(word.filter(Boolean)),
        fc.array(fc.array(word, { maxLength: 12 }), { maxLength: 6 }),
        (mine, others) => {
          const terms = new Set(mine);
          const similarity = similarityTo(terms);
          const candidates = others.map((words, seq) => ({ seq, projectName: null, searchTerms: stored(words) }));
          // Twice over the same objects: the remembered word counts must give the same answers.
          for (const candidate of [...candidates, ...candidates]) {
            expect(similarity(candidate)).toBe(jaccard(terms, comparedTerms(candidate.searchTerms)));
          }
        },
      ),
    );
  });

  it('compares only the first characters of a long candidate, as comparedTerms does', () => {
    const long = ` ${Array.from({ length: 5000 }, (_, i) => `t${i}`).join(' ')} `;
    const terms = new Set(['t0', 't4999', 't10']);
    const candidate = { seq: 1, projectName: null, searchTerms: long };
    expect(similarityTo(terms)(candidate)).toBe(jaccard(terms, comparedTerms(long)));
  });
});
