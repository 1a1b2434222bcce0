import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dedupeKey, jaccard, normalizeForDedupe } from './dedupe.js';

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
