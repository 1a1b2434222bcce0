import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Clock } from './clock.js';
import { createIdGenerator, derivedId, type IdPrefix, isId, ulid } from './ids.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_FORMAT = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const MAX_TIME = 2 ** 48 - 1;

/** Decodes Crockford base32 into a bigint (independent of the encoder under test). */
function decodeBase32(text: string): bigint {
  let value = 0n;
  for (const c of text) {
    const digit = CROCKFORD.indexOf(c);
    if (digit < 0) throw new Error(`not a Crockford character: ${c}`);
    value = value * 32n + BigInt(digit);
  }
  return value;
}

const decodeTime = (id: string): number => Number(decodeBase32(id.slice(0, 10)));

/** The 80 random bits, as bytes. */
function decodeRandom(id: string): number[] {
  let value = decodeBase32(id.slice(10));
  const bytes: number[] = [];
  for (let i = 0; i < 10; i++) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  return bytes;
}

const bytes10 = fc.uint8Array({ minLength: 10, maxLength: 10 });

function manualClock(startMs: number) {
  let now = startMs;
  const clock: Clock = { now: () => new Date(now) };
  return {
    clock,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('ulid', () => {
  it('is 26 Crockford base32 characters', () => {
    for (let i = 0; i < 100; i++) expect(ulid(Date.now())).toMatch(ULID_FORMAT);
    expect(ulid(0)).toMatch(ULID_FORMAT);
    expect(ulid(MAX_TIME)).toMatch(ULID_FORMAT);
  });

  it('encodes the known example timestamp of the ULID specification', () => {
    expect(ulid(1469918176385, new Uint8Array(10)).slice(0, 10)).toBe('01ARYZ6S41');
  });

  it('encodes the extremes', () => {
    expect(ulid(0, new Uint8Array(10))).toBe('0'.repeat(26));
    expect(ulid(MAX_TIME, new Uint8Array(10).fill(255))).toBe(`7${'Z'.repeat(25)}`);
  });

  it('encodes the random bytes big-endian, 5 bits per character', () => {
    const random = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ulid(0, random).slice(10)).toBe(`${'0'.repeat(15)}1`);
    const high = Uint8Array.from([0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ulid(0, high).slice(10)).toBe(`G${'0'.repeat(15)}`); // 0b10000 = 16 = 'G'
  });

  it('property: the random part is the 80 given bits in base32, most significant first', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 10, maxLength: 10 }), (bytes) => {
        let value = 0n;
        for (const byte of bytes) value = (value << 8n) | BigInt(byte);
        let expected = '';
        for (let i = 15; i >= 0; i--)
          expected += '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[Number((value >> BigInt(5 * i)) & 31n)];
        expect(ulid(0, bytes).slice(10)).toBe(expected);
      }),
    );
  });

  // 1,000 ids draw on the random pool four times over (256 ids a draw).
  it('draws fresh randomness by default', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(ulid(1_700_000_000_000));
    expect(ids.size).toBe(1000);
  });

  it('property: the time part decodes back to the timestamp', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_TIME }), (time) => {
        const id = ulid(time);
        expect(id).toMatch(ULID_FORMAT);
        expect(decodeTime(id)).toBe(time);
      }),
    );
  });

  it('property: the random part decodes back to the random bytes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_TIME }), bytes10, (time, random) => {
        const id = ulid(time, random);
        expect(id).toMatch(ULID_FORMAT);
        expect(decodeRandom(id)).toEqual([...random]);
        expect(decodeTime(id)).toBe(time);
      }),
    );
  });

  it('property: a later time sorts after an earlier one, whatever the random part', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_TIME }),
        fc.integer({ min: 0, max: MAX_TIME }),
        bytes10,
        bytes10,
        (a, b, ra, rb) => {
          fc.pre(a !== b);
          const [early, late] = a < b ? [a, b] : [b, a];
          const [ra2, rb2] = a < b ? [ra, rb] : [rb, ra];
          expect(ulid(early, ra2) < ulid(late, rb2)).toBe(true);
        },
      ),
    );
  });

  it('property: consecutive milliseconds sort in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_TIME - 1 }), (time) => {
        expect(ulid(time, new Uint8Array(10).fill(255)) < ulid(time + 1, new Uint8Array(10))).toBe(true);
      }),
    );
  });
});

describe('createIdGenerator', () => {
  it('prefixes each id with its kind and an underscore', () => {
    const { clock } = manualClock(Date.UTC(2026, 0, 1));
    const next = createIdGenerator(clock);
    for (const prefix of ['usr', 'key', 'prm', 'mem', 'art', 'ses'] as IdPrefix[]) {
      const id = next(prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`));
    }
  });

  it('encodes the clock time in the id', () => {
    const start = Date.UTC(2026, 10, 21, 2, 21, 0, 96);
    const { clock, advance } = manualClock(start);
    const next = createIdGenerator(clock);
    expect(decodeTime(next('prm').slice(4))).toBe(start);
    advance(12_345);
    expect(decodeTime(next('prm').slice(4))).toBe(start + 12_345);
  });

  it('ids made at later clock times sort lexicographically later', () => {
    const { clock, advance } = manualClock(Date.UTC(2025, 5, 1));
    const next = createIdGenerator(clock);
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) {
      ids.push(next('mem'));
      advance(1 + (i % 7) * 1000);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('ids made in the same millisecond are still unique', () => {
    const { clock } = manualClock(Date.UTC(2026, 0, 1));
    const next = createIdGenerator(clock);
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(next('key'));
    expect(ids.size).toBe(1000);
  });

  it('property: for any two clock times, the later id is greater', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_TIME - 10 * 365 * 86_400_000 }),
        fc.integer({ min: 1, max: 10 * 365 * 86_400_000 }),
        (start, delta) => {
          const { clock, advance } = manualClock(start);
          const next = createIdGenerator(clock);
          const first = next('art');
          advance(delta);
          const second = next('art');
          expect(first < second).toBe(true);
          expect(decodeTime(second.slice(4)) - decodeTime(first.slice(4))).toBe(delta);
        },
      ),
    );
  });
});

describe('isId and derivedId', () => {
  it('recognises generated ids of their own kind only', () => {
    const ids = createIdGenerator({ now: () => new Date() });
    expect(isId('prm', ids('prm'))).toBe(true);
    expect(isId('mem', ids('prm'))).toBe(false);
    for (const bad of [
      'prm_',
      'prm_01ARZ3NDEKTSV4RRFFQ69G5FAVX',
      'prm_01arz3ndektsv4rrffq69g5fav',
      'prm_01ARZ3NDEKTSV4RRFFQ69G5FAI',
    ]) {
      expect(isId('prm', bad), bad).toBe(false);
    }
  });

  it('derives a stable, well-formed id from a seed', () => {
    fc.assert(
      fc.property(fc.string(), (seed) => {
        const id = derivedId('mem', seed);
        expect(isId('mem', id)).toBe(true);
        expect(derivedId('mem', seed)).toBe(id);
      }),
    );
    expect(derivedId('mem', 'a')).not.toBe(derivedId('mem', 'b'));
  });
});
