import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withGenericLimits } from '../../src/storage/database.js';
import type { Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { statementsDuring } from '../helpers/sqlite-statements.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

/**
 * Bound limits are planned once (database.ts `withGenericLimits`; docs/performance.md, session 12). SQLite
 * 3.5x plans a bare `LIMIT ?` with the value bound to it and re-prepares the statement at the next run after
 * any new binding of it: every cached statement with a bound limit was parsed and planned on each run.
 */

describe('withGenericLimits', () => {
  it('puts a unary plus before a bound LIMIT or OFFSET and changes nothing else', () => {
    expect(withGenericLimits('select "a" from "t" where "b" = ? order by "a" limit ? offset ?')).toBe(
      'select "a" from "t" where "b" = ? order by "a" limit +? offset +?',
    );
    // A literal limit is planned with its value already; names that merely contain the words are left alone.
    expect(withGenericLimits('select "rate_limit" from "t" limit 1')).toBe('select "rate_limit" from "t" limit 1');
    expect(withGenericLimits('select x_limit ? from t')).toBe('select x_limit ? from t');
    // Idempotent: a statement cached under its original text is never rewritten twice into something else.
    const once = withGenericLimits('select 1 limit ?');
    expect(withGenericLimits(once)).toBe(once);
  });

  it('answers the same rows as the bare parameters for any limit and offset (property)', () => {
    const db = new BetterSqlite3(':memory:');
    try {
      db.exec('create table t (a integer primary key, b integer not null); create index t_b on t (b)');
      const insert = db.prepare('insert into t (b) values (?)');
      for (let i = 0; i < 200; i++) insert.run((i * 7919) % 31);
      const queries = [
        'select a from t where b >= ? order by a desc limit ? offset ?',
        'select a, b from t where b >= ? order by b, a limit ? offset ?',
        'select b, count(*) as n from t where b >= ? group by b order by n desc, b limit ? offset ?',
      ];
      const pairs = queries.map((text) => [db.prepare(text), db.prepare(withGenericLimits(text))] as const);
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 31 }),
          fc.integer({ min: -1, max: 250 }),
          fc.integer({ min: 0, max: 250 }),
          (floor, limit, offset) => {
            for (const [bare, generic] of pairs) {
              expect(generic.all(floor, limit, offset)).toEqual(bare.all(floor, limit, offset));
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      db.close();
    }
  });
});

describe('statements the SQLite stores run with a bound limit', () => {
  let test: TestStores;
  let stores: Stores;
  const AT = '2026-01-01T00:00:00.000Z';

  beforeAll(async () => {
    test = await openTestStores('sqlite', ['usr_a']);
    stores = test.stores;
    for (let i = 0; i < 30; i++) {
      await stores.memories.insert(
        {
          id: `mem_${i}`,
          userId: 'usr_a',
          text: `tabs or spaces, take ${i}`,
          projectName: i % 2 ? 'api' : null,
          metadata: {},
          createdAt: AT,
          updatedAt: AT,
          lastAccessedAt: null,
        },
        TEST_CHANGE,
        {},
      );
    }
  });
  afterAll(() => test?.close());

  it('are prepared with the limit as an expression, so each is planned once', async () => {
    let found: unknown[] = [];
    const statements = await statementsDuring(async () => {
      // A create's near-duplicate candidates (the keyword index, newest first, up to a limit) ...
      found = await stores.memories.keywordCandidates('usr_a', { terms: ['tab'], tags: [], limit: 20, visibleAt: AT });
      // ... an export batch ...
      await stores.bundles.memories('usr_a', 0, 10);
    });
    expect(found).toHaveLength(20);
    const limited = statements.filter((text) => /\b(limit|offset)\b/.test(text));
    expect(limited.length).toBeGreaterThan(1);
    for (const text of limited) expect(text).not.toMatch(/\b(limit|offset) \?/);
    expect(limited.some((text) => text.includes('limit +?'))).toBe(true);
  });
});
