import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount } from './format.js';

describe('formatCount', () => {
  it('groups digits by thousands as en-US does', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(1_048_576)).toBe('1,048,576');
    expect(formatCount(-25_000)).toBe('-25,000');
  });

  it('matches toLocaleString("en-US") for every safe integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
    );
  });
});
