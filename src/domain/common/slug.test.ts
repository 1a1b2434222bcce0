import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidSlug, SLUG_MAX, slugify, uniqueSlug } from './slug.js';

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A valid slug of the given length range (words of [a-z0-9] joined by single hyphens). */
const slugArb = (maxWordLength = 12, maxWords = 5) =>
  fc
    .array(fc.string({ unit: fc.constantFrom(...LOWER_ALNUM), minLength: 1, maxLength: maxWordLength }), {
      minLength: 1,
      maxLength: maxWords,
    })
    .map((words) => words.join('-'))
    .filter((s) => s.length <= SLUG_MAX);

const anyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: fc.constantFrom('a', 'Z', '9', '-', ' ', '!', 'é', 'ß', 'İ', 'ﬁ', '²', '\u0301', '中') }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  fc.string({ unit: fc.constantFrom('a', 'b', '-', ' '), minLength: 90, maxLength: 140 }),
);

describe('isValidSlug', () => {
  it('accepts lowercase words joined by single hyphens, 1–100 characters', () => {
    for (const ok of ['a', '0', 'code-review', 'v2-final-3', 'a'.repeat(100), `${'ab-'.repeat(33)}x`]) {
      expect(isValidSlug(ok), ok).toBe(true);
    }
  });

  it('rejects empty, too long, uppercase, leading/trailing/double hyphens and other characters', () => {
    for (const bad of ['', 'a'.repeat(101), 'Code', '-a', 'a-', 'a--b', 'a b', 'a_b', 'a.b', 'crème', 'a\n', '\na']) {
      expect(isValidSlug(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('slugify', () => {
  // Each row: what the rule is, then inputs with the slug each must give.
  it.each<[string, [input: string, slug: string][]]>([
    [
      'lowercases and joins words with hyphens',
      [
        ['Code Review', 'code-review'],
        ['HELLO world 42', 'hello-world-42'],
      ],
    ],
    [
      'folds accents',
      [
        ['Crème Brûlée!', 'creme-brulee'],
        ['Ångström façade naïve', 'angstrom-facade-naive'],
        ['Ça va? Très bien', 'ca-va-tres-bien'],
        // decomposed input (combining marks) folds the same way
        ['Cre\u0300me', 'creme'],
      ],
    ],
    [
      'collapses every run of other characters into a single hyphen',
      [
        ['a  --  b', 'a-b'],
        ['a!!!b???c', 'a-b-c'],
        ['foo_bar.baz/qux', 'foo-bar-baz-qux'],
        ['tabs\tand\nnewlines', 'tabs-and-newlines'],
      ],
    ],
    [
      'trims hyphens at both ends',
      [
        ['  --Hello--  ', 'hello'],
        ['!!!wow!!!', 'wow'],
        ['-a-', 'a'],
      ],
    ],
    [
      "falls back to 'prompt' when nothing is left",
      [
        ['', 'prompt'],
        ['   ', 'prompt'],
        ['!!! ??? ---', 'prompt'],
        ['中文标题', 'prompt'],
        ['🎉🎉', 'prompt'],
      ],
    ],
  ])('%s', (_rule, examples) => {
    for (const [input, slug] of examples) expect(slugify(input), input).toBe(slug);
  });

  it('uses a given fallback', () => {
    expect(slugify('!!!', 'artifact')).toBe('artifact');
    expect(slugify('Real title', 'artifact')).toBe('real-title');
  });

  it('keeps at most 100 characters', () => {
    expect(slugify('a'.repeat(250))).toBe('a'.repeat(100));
    expect(slugify('x'.repeat(100))).toBe('x'.repeat(100));
  });

  it('does not end in a hyphen when the cut falls on one', () => {
    // 99 letters, then a separator at position 100 (index 99), then more text.
    const title = `${'a'.repeat(99)} bcd`;
    const slug = slugify(title);
    expect(slug).toBe('a'.repeat(99));
    expect(slug.endsWith('-')).toBe(false);
  });

  it('cuts mid-word at exactly 100 characters', () => {
    const slug = slugify(`${'a'.repeat(98)} bcd`);
    expect(slug).toBe(`${'a'.repeat(98)}-b`);
    expect(slug).toHaveLength(100);
  });

  it('counts the limit after collapsing, not on the raw title', () => {
    const title = `${'a'.repeat(50)}${' '.repeat(200)}${'b'.repeat(49)}`;
    expect(slugify(title)).toBe(`${'a'.repeat(50)}-${'b'.repeat(49)}`);
  });

  it('property: the result is always a valid slug', () => {
    fc.assert(
      fc.property(anyString, (title) => {
        const slug = slugify(title);
        expect(isValidSlug(slug), JSON.stringify({ title, slug })).toBe(true);
      }),
    );
  });

  it('property: idempotent on its own output', () => {
    fc.assert(
      fc.property(anyString, (title) => {
        const once = slugify(title);
        expect(slugify(once)).toBe(once);
      }),
    );
  });

  it('property: a valid slug is its own slug', () => {
    fc.assert(
      fc.property(slugArb(), (slug) => {
        expect(slugify(slug)).toBe(slug);
      }),
    );
  });

  it('property: the slug of a title with letters and digits only is that title, lowercased and cut to 100', () => {
    const alnum = fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
      minLength: 1,
      maxLength: 150,
    });
    fc.assert(
      fc.property(alnum, (title) => {
        expect(slugify(title)).toBe(title.toLowerCase().slice(0, 100));
      }),
    );
  });
});

describe('uniqueSlug', () => {
  it('returns the base when it is free', () => {
    expect(uniqueSlug('code-review', new Set())).toBe('code-review');
    expect(uniqueSlug('code-review', new Set(['code-review-2', 'other']))).toBe('code-review');
  });

  it('appends -2, -3, … in order', () => {
    expect(uniqueSlug('x', new Set(['x']))).toBe('x-2');
    expect(uniqueSlug('x', new Set(['x', 'x-2']))).toBe('x-3');
    expect(uniqueSlug('x', new Set(['x', 'x-2', 'x-3', 'x-4']))).toBe('x-5');
  });

  it('takes the first free number, even when a later one is taken', () => {
    expect(uniqueSlug('x', new Set(['x', 'x-3']))).toBe('x-2');
    expect(uniqueSlug('x', new Set(['x', 'x-2', 'x-4']))).toBe('x-3');
  });

  it('keeps a 100-character base within 100 characters', () => {
    const base = 'a'.repeat(100);
    const second = uniqueSlug(base, new Set([base]));
    expect(second).toBe(`${'a'.repeat(98)}-2`);
    expect(second).toHaveLength(100);
    expect(isValidSlug(second)).toBe(true);
  });

  it('shortens more for longer suffixes', () => {
    const base = 'a'.repeat(100);
    const taken = new Set([base]);
    for (let n = 2; n <= 9; n++) taken.add(`${'a'.repeat(98)}-${n}`);
    const tenth = uniqueSlug(base, taken);
    expect(tenth).toBe(`${'a'.repeat(97)}-10`);
    expect(tenth).toHaveLength(100);
  });

  it('does not leave a double hyphen when the cut falls on a hyphen', () => {
    const base = `${'a'.repeat(97)}-bb`; // 100 characters, hyphen at index 97
    expect(base).toHaveLength(100);
    const next = uniqueSlug(base, new Set([base]));
    expect(next).toBe(`${'a'.repeat(97)}-2`);
    expect(isValidSlug(next)).toBe(true);
  });

  it('property: with base, base-2 … base-n taken, returns base-(n+1) whatever else is taken', () => {
    fc.assert(
      fc.property(
        slugArb(10, 4),
        fc.integer({ min: 0, max: 15 }),
        fc.array(slugArb(), { maxLength: 5 }),
        (base, n, others) => {
          fc.pre(base.length <= 90);
          // Unrelated slugs: neither the base nor one of its numbered forms.
          const taken = new Set(others.filter((o) => o !== base && !o.startsWith(`${base}-`)));
          if (n >= 1) taken.add(base);
          for (let i = 2; i <= n; i++) taken.add(`${base}-${i}`);
          expect(uniqueSlug(base, taken)).toBe(n === 0 ? base : `${base}-${n + 1}`);
        },
      ),
    );
  });

  it('property: the result is a valid, untaken slug of at most 100 characters, and the first free number', () => {
    /** The spec's n-th candidate: base cut so that `-n` fits in 100 characters, with no trailing hyphen. */
    const candidate = (base: string, n: number) =>
      `${base.slice(0, SLUG_MAX - `-${n}`.length).replace(/-+$/, '')}-${n}`;
    fc.assert(
      fc.property(
        fc.oneof(slugArb(), slugArb(40, 3), fc.constant('a'.repeat(100)), fc.constant(`${'b'.repeat(97)}-cc`)),
        fc.integer({ min: 0, max: 30 }),
        fc.array(slugArb(3, 3), { maxLength: 10 }),
        (base, chain, others) => {
          const taken = new Set<string>(others);
          taken.add(base);
          for (let i = 2; i < chain + 2; i++) taken.add(candidate(base, i));
          const result = uniqueSlug(base, taken);
          expect(isValidSlug(result), result).toBe(true);
          expect(result.length).toBeLessThanOrEqual(SLUG_MAX);
          expect(taken.has(result)).toBe(false);
          const n = Number(/-(\d+)$/.exec(result)?.[1]);
          expect(n).toBeGreaterThanOrEqual(chain + 2);
          expect(result).toBe(candidate(base, n));
          for (let k = 2; k < n; k++) expect(taken.has(candidate(base, k)), `candidate ${k} skipped`).toBe(true);
        },
      ),
    );
  });
});
