import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatNumber, plural, pluralNoun } from './format';

describe('plural', () => {
  it('uses the singular for one and the plural otherwise', () => {
    expect(plural(1, 'request')).toBe('1 request');
    expect(plural(0, 'request')).toBe('0 requests');
    expect(plural(2, 'request')).toBe('2 requests');
    expect(plural(1, 'reply', 'replies')).toBe('1 reply');
    expect(plural(3, 'reply', 'replies')).toBe('3 replies');
  });

  it('formats the number as every other count on the page is', () => {
    fc.assert(
      fc.property(fc.nat(10_000_000), (count) => {
        expect(plural(count, 'line')).toBe(`${formatNumber(count)} ${count === 1 ? 'line' : 'lines'}`);
      }),
    );
  });

  it('gives the noun alone, for counts drawn apart from their noun', () => {
    expect(pluralNoun(1, 'request')).toBe('request');
    expect(pluralNoun(5, 'request')).toBe('requests');
  });
});
