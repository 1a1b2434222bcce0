import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundedArray,
  boundedString,
  INPUT_MAX_DEPTH,
  INPUT_MAX_ENTRIES,
  INPUT_MAX_TOTAL_ENTRIES,
  measureInput,
} from './bounds.js';

/** What checkInput reports before a schema runs: a budget over, or else the fields holding U+0000. */
const inputShapeProblems = (value: unknown, root?: string) => {
  const { budget, text } = measureInput(value, root);
  return budget ?? text;
};

describe('boundedString', () => {
  it('never runs a later check on a value over its bound, and always runs it within', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.integer({ min: 0, max: 30 }), (value, max) => {
        let ran = false;
        const schema = boundedString(max, 'too long').refine(() => {
          ran = true;
          return true;
        });
        const result = schema.safeParse(value);
        expect(result.success).toBe(value.length <= max);
        expect(ran).toBe(value.length <= max);
        if (!result.success) expect(result.error.issues.map((i) => i.message)).toEqual(['too long']);
      }),
    );
  });

  it('refuses a 1 MiB string before a pattern sees it', () => {
    let ran = false;
    const schema = boundedString(10).refine(() => {
      ran = true;
      return true;
    });
    expect(schema.safeParse('a'.repeat(1024 * 1024)).success).toBe(false);
    expect(ran).toBe(false);
  });
});

describe('boundedArray', () => {
  it('refuses an over-long array without parsing its items', () => {
    let parsed = 0;
    const item = boundedString(5).refine(() => {
      parsed++;
      return true;
    });
    expect(boundedArray(item, 3).safeParse(Array.from({ length: 100_000 }, () => 'a')).success).toBe(false);
    expect(parsed).toBe(0);
    expect(boundedArray(item, 3).safeParse(['a', 'b']).success).toBe(true);
    expect(parsed).toBe(2);
  });
});

describe('inputShapeProblems', () => {
  it('accepts any small JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(inputShapeProblems(value)).toBeNull();
      }),
    );
  });

  it('names the container with too many entries by its path', () => {
    const many = Object.fromEntries(Array.from({ length: INPUT_MAX_ENTRIES + 1 }, (_, i) => [`k${i}`, i]));
    expect(inputShapeProblems({ metadata: { inner: many } })).toEqual({
      'metadata.inner': 'At most 5,000 entries in one object or array',
    });
    expect(inputShapeProblems({ labels: Array.from({ length: INPUT_MAX_ENTRIES + 1 }, () => 'a') })).toEqual({
      labels: 'At most 5,000 entries in one object or array',
    });
    expect(
      inputShapeProblems(
        Array.from({ length: INPUT_MAX_ENTRIES + 1 }, () => 1),
        'arguments',
      ),
    ).toEqual({
      arguments: 'At most 5,000 entries in one object or array',
    });
  });

  it('bounds the total across containers', () => {
    const chunk = () => Array.from({ length: INPUT_MAX_ENTRIES }, () => 0);
    const body = Object.fromEntries(
      Array.from({ length: INPUT_MAX_TOTAL_ENTRIES / INPUT_MAX_ENTRIES + 1 }, (_, i) => [`f${i}`, chunk()]),
    );
    expect(inputShapeProblems(body)).toEqual({ body: 'At most 50,000 fields and items in all' });
  });

  it('measures nesting without recursion and names the top-level field', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(inputShapeProblems({ metadata: deep })).toEqual({
      metadata: `Value is nested more than ${INPUT_MAX_DEPTH} levels deep`,
    });
    let ok: unknown = 1;
    for (let i = 0; i < INPUT_MAX_DEPTH - 1; i++) ok = { a: ok };
    expect(inputShapeProblems(ok)).toBeNull();
  });
});

describe('NUL characters', () => {
  it('are refused in any string or key, named by path', () => {
    expect(inputShapeProblems({ title: 'a\u0000b' })).toEqual({ title: 'Must not contain the NUL character (U+0000)' });
    expect(inputShapeProblems({ metadata: { 'k\u0000': 1 } })).toEqual({
      'metadata.k\u0000': 'Must not contain the NUL character (U+0000)',
    });
    expect(inputShapeProblems({ labels: ['ok', '\u0000'] })).toEqual({
      'labels.1': 'Must not contain the NUL character (U+0000)',
    });
    expect(inputShapeProblems('\u0000', 'email')).toEqual({ email: 'Must not contain the NUL character (U+0000)' });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value) ?? '';
        expect(inputShapeProblems(value) === null).toBe(!text.includes('\\u0000'));
      }),
    );
  });
});

describe('measureInput without budgets (import lines, bounded by their byte length)', () => {
  it('walks a 200,000-deep value in linear time and names a NUL at the bottom', () => {
    let deep: unknown = 'bottom\u0000';
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    const { budget, text } = measureInput(deep, 'line', false);
    expect(budget).toBeNull();
    const [path] = Object.keys(text ?? {});
    expect(path?.split('.').length).toBe(200_000);
    // With budgets, the same value stops at the nesting bound, named by its top-level field.
    expect(measureInput({ metadata: deep }).budget).toEqual({
      metadata: `Value is nested more than ${INPUT_MAX_DEPTH} levels deep`,
    });
  });

  it('names at most 20 fields holding U+0000', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, '\u0000']));
    expect(Object.keys(measureInput(many, 'line', false).text ?? {})).toHaveLength(20);
  });
});
