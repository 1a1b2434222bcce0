import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DISPLAY_PREFIX_LENGTH,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isLegacyKey,
  isWellFormedKey,
  KEY_PREFIX,
  LEGACY_PREFIXES,
  randomToken,
} from './api-key.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CURRENT_FORMAT = /^svk_[A-Za-z0-9]{64}$/;

/** A byte source that hands out the given batches in turn (the last one repeats), recording each request. */
function scriptedSource(...batches: number[][]) {
  const requests: number[] = [];
  let call = 0;
  const source = (n: number): Uint8Array => {
    requests.push(n);
    const batch = batches[Math.min(call, batches.length - 1)] ?? [];
    call += 1;
    return Uint8Array.from(batch);
  };
  return { source, requests };
}

/** Reference model of the accepted formats, written without regular expressions. */
function modelIsWellFormed(s: string): boolean {
  const isAlnum = (c: string) => (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  const body = (rest: string, ok: (c: string) => boolean) => [...rest].every(ok);
  if (s.startsWith('svk_')) {
    const rest = s.slice(4);
    if (rest.length === 64 && body(rest, isAlnum)) return true;
  }
  for (const prefix of ['aait_', 'acli_', 'amcp_', 'amkt_', 'ak_']) {
    if (!s.startsWith(prefix)) continue;
    const rest = s.slice(prefix.length);
    if (rest.length >= 16 && rest.length <= 128 && body(rest, (c) => isAlnum(c) || c === '_' || c === '-')) return true;
  }
  return false;
}

/** Strings that are near misses of both formats: plausible prefixes, bodies around the length limits. */
const nearKey = fc
  .tuple(
    fc.constantFrom(
      'svk_',
      'SVK_',
      'svk-',
      'svk',
      'sk_',
      'aait_',
      'acli_',
      'amcp_',
      'amkt_',
      'ak_',
      'AK_',
      'ak-',
      'x_',
      '',
    ),
    fc.string({
      unit: fc.oneof(
        { weight: 20, arbitrary: fc.constantFrom(...ALPHABET) },
        { weight: 1, arbitrary: fc.constantFrom('_', '-', ' ', '+', '/', '=', 'é', '\n', '.', '\u0000') },
      ),
      minLength: 10,
      maxLength: 135,
    }),
  )
  .map(([prefix, body]) => prefix + body);

describe('generateApiKey', () => {
  it('produces svk_ followed by 64 characters of [A-Za-z0-9]', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(CURRENT_FORMAT);
      expect(key.startsWith(KEY_PREFIX)).toBe(true);
      expect(key).toHaveLength(68);
    }
  });

  it('produces unique keys across many generations', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 10_000; i++) keys.add(generateApiKey());
    expect(keys.size).toBe(10_000);
  });

  it('uses every character of the alphabet (and nothing else) over many keys', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) for (const c of generateApiKey().slice(4)) seen.add(c);
    expect([...seen].sort().join('')).toBe([...ALPHABET].sort().join(''));
  });

  it('generated keys are well formed and not legacy', () => {
    const key = generateApiKey();
    expect(isWellFormedKey(key)).toBe(true);
    expect(isLegacyKey(key)).toBe(false);
  });

  it('draws the body from the injected source', () => {
    const { source } = scriptedSource([0, 1, 2, 3]);
    expect(generateApiKey(source)).toBe(`svk_${'ABCD'.repeat(16)}`);
  });
});

describe('randomToken (rejection sampling, no modulo bias)', () => {
  it('maps accepted bytes to ALPHABET[byte % 62] and skips bytes ≥ 248', () => {
    const { source } = scriptedSource([255, 248, 0, 61, 249, 62, 250, 247, 123, 251, 252, 253, 254, 1]);
    // accepted: 0→A, 61→9, 62→A, 247→9 (247 % 62 = 61), 123→9 (123 % 62 = 61), 1→B
    expect(randomToken(6, source)).toBe('A9A99B');
  });

  it('never emits a character for a rejected byte, even at the start of a batch', () => {
    // Only rejected bytes in the first batch: nothing comes from it, and the next batch is asked for.
    const { source, requests } = scriptedSource([248, 249, 250, 251, 252, 253, 254, 255], [10, 36, 52]);
    expect(randomToken(3, source)).toBe('Kk0');
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const n of requests) expect(n).toBeGreaterThan(0);
  });

  it('keeps asking the source until enough bytes were accepted', () => {
    const { source, requests } = scriptedSource([255, 7], [255, 255, 8], [9]);
    expect(randomToken(5, source)).toBe('HIJJJ');
    expect(requests).toHaveLength(5);
  });

  it('stops at the requested length even when the source returns more', () => {
    const { source } = scriptedSource(Array.from({ length: 500 }, (_, i) => i % 62));
    expect(randomToken(10, source)).toBe('ABCDEFGHIJ');
    expect(randomToken(0, source)).toBe('');
  });

  it('every byte 0..247 once per batch gives every one of the 62 characters exactly 4 times per 248 bytes', () => {
    // A shuffled permutation of the accepted bytes, with every rejected byte mixed in.
    const accepted = Array.from({ length: 248 }, (_, i) => i);
    const rejected = [248, 249, 250, 251, 252, 253, 254, 255];
    const batch: number[] = [];
    for (let i = 0; i < accepted.length; i++) {
      batch.push(((accepted[i] as number) * 97) % 248); // 97 is coprime with 248: still a permutation
      if (i % 31 === 0) batch.push(rejected[(i / 31) % rejected.length] as number);
    }
    expect(new Set(batch.filter((b) => b < 248)).size).toBe(248);

    for (const rounds of [1, 3, 10]) {
      const { source } = scriptedSource(batch);
      const token = randomToken(248 * rounds, source);
      const counts = new Map<string, number>();
      for (const c of token) counts.set(c, (counts.get(c) ?? 0) + 1);
      expect(counts.size).toBe(62);
      for (const c of ALPHABET) expect(counts.get(c), `character ${c}`).toBe(4 * rounds);
    }
  });

  it('property: output is exactly ALPHABET[b % 62] over the accepted bytes, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 80 }),
        (bytes, length) => {
          fc.pre(bytes.some((b) => b < 248));
          const { source } = scriptedSource(bytes);
          const acceptedChars = bytes.filter((b) => b < 248).map((b) => ALPHABET[b % 62]);
          // The source repeats the same batch, so the expected stream is the accepted characters, cycled.
          const expected = Array.from({ length }, (_, i) => acceptedChars[i % acceptedChars.length]).join('');
          expect(randomToken(length, source)).toBe(expected);
        },
      ),
    );
  });
});

describe('hashApiKey', () => {
  it('is the SHA-256 hex digest of the whole key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches a known SHA-256 test vector', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('differs for keys that differ in one character', () => {
    const key = `svk_${'A'.repeat(64)}`;
    expect(hashApiKey(key)).not.toBe(hashApiKey(`svk_${'A'.repeat(63)}B`));
  });

  it('property: equals node:crypto SHA-256 hex (UTF-8) for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(hashApiKey(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
      }),
    );
  });
});

describe('displayPrefix', () => {
  it('is the first 12 characters: svk_ and 8 more', () => {
    const key = `svk_AbCdEfGh${'x'.repeat(56)}`;
    expect(DISPLAY_PREFIX_LENGTH).toBe(12);
    expect(displayPrefix(key)).toBe('svk_AbCdEfGh');
    expect(displayPrefix(key)).toHaveLength(12);
  });

  it('is a prefix of every generated key', () => {
    for (let i = 0; i < 50; i++) {
      const key = generateApiKey();
      const prefix = displayPrefix(key);
      expect(prefix).toHaveLength(12);
      expect(key.startsWith(prefix)).toBe(true);
      expect(prefix.startsWith('svk_')).toBe(true);
    }
  });
});

describe('isWellFormedKey', () => {
  const body64 = `${'aB3'.repeat(21)}z`;

  it('accepts the current format', () => {
    expect(body64).toHaveLength(64);
    expect(isWellFormedKey(`svk_${body64}`)).toBe(true);
    expect(isWellFormedKey(`svk_${'0'.repeat(64)}`)).toBe(true);
  });

  it('accepts every legacy prefix', () => {
    for (const prefix of LEGACY_PREFIXES) {
      expect(isWellFormedKey(`${prefix}${'a1B2'.repeat(8)}`), prefix).toBe(true);
      expect(isWellFormedKey(`${prefix}with_under-scores1`), prefix).toBe(true);
      expect(isLegacyKey(`${prefix}${'a1B2'.repeat(8)}`), prefix).toBe(true);
    }
  });

  it('rejects a wrong prefix', () => {
    for (const prefix of ['SVK_', 'svk-', 'svk', 'sk_', 'svkk_', ' svk_', 'pk_', '']) {
      expect(isWellFormedKey(`${prefix}${body64}`), prefix).toBe(false);
    }
  });

  it('rejects a wrong length', () => {
    expect(isWellFormedKey(`svk_${body64.slice(1)}`)).toBe(false);
    expect(isWellFormedKey(`svk_${body64}a`)).toBe(false);
    expect(isWellFormedKey('svk_')).toBe(false);
    expect(isWellFormedKey('')).toBe(false);
  });

  it('rejects characters outside the alphabet', () => {
    for (const bad of ['-', '_', '+', '/', '=', ' ', 'é', '\n', '\u0000']) {
      expect(isWellFormedKey(`svk_${body64.slice(1)}${bad}`), JSON.stringify(bad)).toBe(false);
      expect(isWellFormedKey(`svk_${bad}${body64.slice(1)}`), JSON.stringify(bad)).toBe(false);
    }
  });

  it('rejects a valid key with surrounding whitespace or a trailing newline', () => {
    const key = `svk_${body64}`;
    expect(isWellFormedKey(` ${key}`)).toBe(false);
    expect(isWellFormedKey(`${key} `)).toBe(false);
    expect(isWellFormedKey(`${key}\n`)).toBe(false);
    expect(isWellFormedKey(`Bearer ${key}`)).toBe(false);
  });

  it('rejects legacy keys with a body that is too short, too long or has other characters', () => {
    expect(isWellFormedKey(`ak_${'a'.repeat(15)}`)).toBe(false);
    expect(isWellFormedKey(`ak_${'a'.repeat(16)}`)).toBe(true);
    expect(isWellFormedKey(`ak_${'a'.repeat(128)}`)).toBe(true);
    expect(isWellFormedKey(`ak_${'a'.repeat(129)}`)).toBe(false);
    expect(isWellFormedKey(`aait_${'a'.repeat(15)}.`)).toBe(false);
    expect(isWellFormedKey(`amkt_${'a'.repeat(20)}=`)).toBe(false);
    expect(isWellFormedKey(`xyz_${'a'.repeat(32)}`)).toBe(false);
  });

  it('isLegacyKey is false for current-format keys and garbage', () => {
    expect(isLegacyKey(`svk_${body64}`)).toBe(false);
    expect(isLegacyKey('garbage')).toBe(false);
  });

  it('property: agrees with a reference model on near-miss strings (so every non-matching string is rejected)', () => {
    fc.assert(
      fc.property(nearKey, (s) => {
        expect(isWellFormedKey(s)).toBe(modelIsWellFormed(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: any arbitrary string not in either format is rejected', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 140 }), fc.string({ maxLength: 140 })), (s) => {
        fc.pre(!modelIsWellFormed(s));
        expect(isWellFormedKey(s)).toBe(false);
      }),
    );
  });

  it('property: mutating one character of a generated key to a non-alphabet character makes it malformed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 67 }),
        fc.constantFrom('-', '_', ' ', '+', '/', 'é', '\t', '!'),
        (index, bad) => {
          const key = generateApiKey();
          const mutated = key.slice(0, index) + bad + key.slice(index + 1);
          expect(isWellFormedKey(mutated)).toBe(false);
        },
      ),
    );
  });
});
