import fc from 'fast-check';

/**
 * Value generators for the request fuzzer: valid values, boundary values (at and one past each bound) and
 * hostile ones (wrong types, prototype keys, traversal strings, SQL/LIKE wildcards, backtracking bait).
 *
 * Sizes: simple repeated characters go up to the 1 MiB body limit; patterns whose cost is known to be
 * super-linear in today's code (`a@`+dots+`@`, `a`+`/a`×N) stay at a few thousand characters here, so one
 * of them cannot stall the whole run — the adversarial suite and the schema timing test hold those at
 * full size.
 */

export const MiB = 1024 * 1024;

const repeatTo = (unit: string, length: number) => unit.repeat(Math.max(1, Math.ceil(length / unit.length)));

/** Lengths around common bounds (1, 50, 100, 200, 254, 500, 1000, 10k, 50k, 100k) and one past each. */
export const boundaryLength = fc.constantFrom(
  0,
  1,
  49,
  50,
  51,
  99,
  100,
  101,
  199,
  200,
  201,
  254,
  255,
  256,
  500,
  501,
  1000,
  1001,
  1024,
  1025,
  4096,
  10_000,
  10_001,
  50_000,
  50_001,
  100_000,
  100_001,
);

const SPECIAL_STRINGS = [
  '',
  ' ',
  '   ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '😀',
  '\u202e',
  'İ',
  'ß',
  'ﬀ',
  'e\u0301',
  '..',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e/%2e%2e',
  '/etc/passwd',
  'C:\\Windows\\win.ini',
  '%',
  '_',
  '%_%',
  '\\',
  '\\%',
  "'; drop table prompts; --",
  "' or '1'='1",
  '"',
  '*',
  'NULL',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '{{x}}',
  '{{',
  '}}',
  '@fz-base',
  '@',
  '@@',
  'a@b.c',
  'a@',
  '@a',
  '<script>alert(1)</script>',
  '\u001b[31mred\u001b[0m',
  'a/b',
  'a//b',
  '/a',
  'a/',
  'mem_',
  'prm_',
  'mem_01JD0000000000000000000000',
  'text/markdown',
  'a/b; c=d',
];

/** Strings built to a length: repeated characters and backtracking bait. */
const patterned = (length: number) =>
  fc.constantFrom(
    'a'.repeat(length),
    'A'.repeat(length),
    ' '.repeat(length),
    `a${' '.repeat(Math.max(0, length - 2))}a`,
    repeatTo('a-', length),
    repeatTo('-', length),
    repeatTo('.', length),
    repeatTo('%_', length),
    repeatTo('😀', length),
    repeatTo('\u0000', length),
    repeatTo('../', length),
    repeatTo('{{a}}', length),
    repeatTo('@a ', length),
    repeatTo('a/b; c=d', length),
  );

/** Patterns that are super-linear in today's code: kept to a few thousand characters (see above). */
const SUPERLINEAR_MAX = 4000;
const superlinear = fc
  .integer({ min: 1, max: SUPERLINEAR_MAX })
  .chain((n) =>
    fc.constantFrom(
      `a@${'.'.repeat(n)}@`,
      `a@${'.'.repeat(n)}`,
      `a${repeatTo('/a', n)}`,
      `${repeatTo('a/', n)}`,
      `a/a${repeatTo(';a=a', n)};`,
    ),
  );

/** Simple long strings up to the body limit (cheap to check when bounds come first). */
const huge = fc.integer({ min: 100_000, max: MiB - 4096 }).map((n) => 'a'.repeat(n));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 20, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 10, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 20, arbitrary: boundaryLength.chain(patterned) },
  { weight: 6, arbitrary: superlinear },
  { weight: 1, arbitrary: huge },
);

const NUMBERS = [0, -1, 1, 1.5, -0.5, 2 ** 31, 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 1e308, -1e308, 5e-324];

/** Anything JSON can carry, biased to what breaks parsers: wrong types, big numbers, nesting, many keys. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(...NUMBERS, true, false, null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1000, 5000, 20_000).map((n) => Array.from({ length: n }, (_, i) => `v${i}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(100, 2000, 20_000)
      .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  },
  { weight: 1, arbitrary: fc.constantFrom(33, 100, 1000).map(nested) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      { __proto__: null, constructor: { prototype: { polluted: true } } },
      JSON.parse('{"__proto__": {"polluted": true}}'),
      { toString: 'x', valueOf: 1 },
    ),
  },
);

/** An object nested `depth` levels deep (built iteratively). */
export function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Raw bodies that are not a well-formed object: broken JSON, prototype poisoning, deep nesting, huge. */
export const rawHostileBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '}',
    'null',
    '[]',
    '"x"',
    '1',
    'true',
    '{"a":1,}',
    "{'a':1}",
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '\u0000',
    '\ufeff{}',
    '{"a":1e999}',
  ),
  fc.constantFrom(1000, 10_000, 100_000).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.constantFrom(1000, 10_000, 100_000).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc.constantFrom(1000, 100_000).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  fc.constantFrom(300_000).map((n) => `[${Array.from({ length: n }, () => '1').join(',')}]`),
  fc.constant(`{"a":"${'a'.repeat(MiB + 16)}"}`),
  fc.string({ maxLength: 200 }),
);

// -- valid values ---------------------------------------------------------------------------------------

const lower = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
const word = (max: number) => fc.string({ unit: fc.constantFrom(...lower), minLength: 1, maxLength: max });

export const validSlug = fc.oneof(
  fc.array(word(8), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('-')),
  fc.constant('a'.repeat(100)),
);

const projectSegment = fc.string({
  unit: fc.constantFrom(...'abcXYZ019._-'.split('')),
  minLength: 1,
  maxLength: 8,
});
export const validProject = fc.oneof(
  { weight: 5, arbitrary: fc.array(projectSegment, { minLength: 1, maxLength: 4 }).map((p) => p.join('/')) },
  { weight: 1, arbitrary: fc.constantFrom('acme/backend', 'acme', 'x'.repeat(200), 'a/'.repeat(99).concat('ab')) },
);

/** Text with at least one non-space character, at most `max` UTF-16 units. */
export const validText = (max: number) =>
  fc
    .oneof(
      { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: Math.min(max, 60) }) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }) },
      { weight: 1, arbitrary: fc.constant('x'.repeat(max)) },
    )
    .map((s) => (s.length > max ? s.slice(0, max) : s))
    .filter((s) => s.trim().length > 0 && !/[\ud800-\udfff]$/.test(s));

export const validLabel = validText(50);
export const validLabels = fc.uniqueArray(validLabel, { maxLength: 10, selector: (s) => s.trim() });

export const validMime = fc.constantFrom(
  'text/markdown',
  'text/plain',
  'application/json',
  'text/x-diff; charset=utf-8',
);
