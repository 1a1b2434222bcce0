import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineParameters } from '../../src/storage/inline-literals.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

/**
 * inline-literals.ts writes a statement's parameters into its text for the simple query protocol (a
 * checked create's first message on PostgreSQL). A value it writes must mean exactly what the parameter
 * meant, and a value that could end its literal must not be written at all.
 */
describe('inlineParameters', () => {
  it('writes ids, hashes, timestamps, words and project names as quoted literals', () => {
    expect(
      inlineParameters('select $1, $2, $3, $4, $10', [
        'usr_01K:TWoyA3-_x',
        '2026-01-01T00:00:00.000Z',
        ['über', '東京', 'a.b/c'],
        20,
        null,
        5,
        6,
        7,
        8,
        true,
      ]),
    ).toBe(`select 'usr_01K:TWoyA3-_x', '2026-01-01T00:00:00.000Z', '{"über","東京","a.b/c"}', '20', true`);
  });

  it('refuses any value that could end its literal, and types it does not know', () => {
    for (const value of [
      "o'brien",
      'back\\slash',
      'dollar$1',
      'semi;colon',
      'new\nline',
      'nul\u0000',
      '"quoted"',
      ['a', "b'"],
      ['a"b'],
      ['{}'],
      1.5,
      Number.NaN,
      2 ** 60,
      { a: 1 },
      undefined,
      new Date(0),
      'x'.repeat(10_001),
    ]) {
      expect(inlineParameters('select $1', [value])).toBeUndefined();
    }
  });

  it('leaves quoted text and identifiers alone, and refuses dollar quoting or a missing parameter', () => {
    expect(inlineParameters(`select '$1', "$1", $1`, ['a'])).toBe(`select '$1', "$1", 'a'`);
    expect(inlineParameters(`select 'it''s $1', $1`, ['a'])).toBe(`select 'it''s $1', 'a'`);
    expect(inlineParameters('select $$ x $$', [])).toBeUndefined();
    expect(inlineParameters('select $2', ['a'])).toBeUndefined();
    expect(inlineParameters(`select 'open`, [])).toBeUndefined();
  });
});

describe.skipIf(!DIALECTS.includes('postgres'))('inlined literals mean what the parameters meant (postgres)', () => {
  let database: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  const text = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.stringMatching(/^[a-z0-9_:./@+ -]{0,30}$/),
    fc.constantFrom("'", "''", '\\', '$1', '$$', '"', '{', '}', ',', 'NULL', ' ', '\u00a0', 'é', 'e\u0301'),
  );
  const value = fc.oneof(
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(text, { maxLength: 5 }),
    fc.array(fc.integer(), { maxLength: 5 }),
  );

  it('reads back every value it writes exactly as the parameter reads back, and refuses the rest', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        // Arrays go through text[] (as the create's words do); other values through text.
        const statement = Array.isArray(v) ? 'select ($1::text[])::text as v' : 'select ($1)::text as v';
        const inlined = inlineParameters(statement, [v]);
        if (inlined === undefined) return;
        // NUL cannot be a parameter either: such values are refused above, never compared here.
        const expected = (await client.query(statement, [Array.isArray(v) ? v.map(String) : v])).rows[0]?.v;
        const result = await client.query(inlined);
        expect(Array.isArray(result)).toBe(false);
        expect(result.rows).toEqual([{ v: expected }]);
        compared++;
      }),
      { numRuns: 500 },
    );
    // Not a vacuous pass: most generated values are of the kinds written.
    expect(compared).toBeGreaterThan(200);
  });
});
