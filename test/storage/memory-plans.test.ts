import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrateToLatest, openDatabase } from '../../src/storage/database.js';
import { createStores, type Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { statementsDuring } from '../helpers/sqlite-statements.js';
import { testUser } from '../helpers/stores.js';

/**
 * Query plans of the memory store's lookups by key on a **new** SQLite database: no statistics yet, as on a
 * server that started empty and grew under one long-running process. Without statistics the planner took
 * `user_id = ? AND seq IN (…)` through the user's index — every memory of the user for five rows, ~2.5 ms per
 * create at 20k memories (the near-duplicate check's `idsBySeq`; docs/performance.md, session 8). The store
 * keeps such lookups on the primary key whatever the statistics; the plan is the proof.
 */
const AT = '2026-01-01T00:00:00.000Z';

describe('memory store query plans on a new SQLite database', () => {
  let dir: string;
  let database: Database;
  let stores: Stores;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-plans-'));
    database = await openDatabase(`sqlite:${join(dir, 'cairn.db')}`);
    await migrateToLatest(database);
    stores = createStores(database);
    await stores.users.insert(testUser('usr_a'), TEST_CHANGE);
    for (let i = 0; i < 50; i++) {
      await stores.memories.insert(
        {
          id: `mem_${i}`,
          userId: 'usr_a',
          text: `memory number ${i}`,
          projectName: null,
          metadata: {},
          createdAt: AT,
          updatedAt: AT,
          lastAccessedAt: null,
        },
        TEST_CHANGE,
        {},
      );
    }
    const { rows } = await sql<{
      n: number;
    }>`select count(*) as n from sqlite_schema where name = 'sqlite_stat1'`.execute(database.db);
    // The premise: no statistics at all.
    expect(rows[0]?.n).toBe(0);
  });
  afterAll(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Each memories statement's plan, from a second connection to the file (no statistics either). */
  const plansOf = (statements: string[]) => {
    const reader = new BetterSqlite3(join(dir, 'cairn.db'), { readonly: true });
    try {
      return statements
        .filter((text) => /(from|join) "memories"/.test(text))
        .map((text) => {
          const parameters = (text.match(/\?/g) ?? []).map(() => null);
          const rows = reader.prepare(`explain query plan ${text}`).all(...parameters) as Array<{ detail: string }>;
          return { text, plan: rows.map((row) => row.detail).join('; ') };
        });
    } finally {
      reader.close();
    }
  };

  it.each([
    ['idsBySeq', (s: Stores) => s.memories.idsBySeq('usr_a', [1, 2, 3, 4, 5])],
    ['findBySeq', (s: Stores) => s.memories.findBySeq('usr_a', [1, 2, 3, 4, 5])],
  ])('%s reads the rows by their key, not by walking the user’s index', async (_name, lookup) => {
    let found: unknown;
    const statements = await statementsDuring(async () => {
      found = await lookup(stores);
    });
    expect(found).toHaveLength(5);
    const plans = plansOf(statements);
    expect(plans.length).toBeGreaterThan(0);
    for (const { plan } of plans) {
      expect(plan).toMatch(/USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan).not.toMatch(/USING (COVERING )?INDEX/);
    }
  });

  // An export reads a user's memories in batches by `seq`, and the kept versions of each batch's range.
  it.each([
    ['memories', (s: Stores) => s.bundles.memories('usr_a', 10, 20)],
    [
      'memoryVersions',
      (s: Stores) => s.bundles.memoryVersions('usr_a', { after: 10, last: 30 }, { seq: 10, version: 0 }, 100),
    ],
  ])(
    'an export batch (%s) seeks the user’s range of seq, without reading the user’s other rows or sorting',
    async (_name, batch) => {
      const statements = await statementsDuring(() => batch(stores));
      const plans = plansOf(statements);
      expect(plans.length).toBeGreaterThan(0);
      for (const { plan } of plans) {
        expect(plan).toMatch(/SEARCH (memories|m) USING (COVERING )?INDEX memories_user_seq \(user_id=\? AND rowid>\?/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      }
    },
  );

  it('another user’s memories are not found by key', async () => {
    expect(await stores.memories.idsBySeq('usr_b', [1, 2, 3])).toEqual([]);
    expect(await stores.memories.findBySeq('usr_b', [1, 2, 3])).toEqual([]);
    expect(await stores.bundles.memories('usr_b', 0, 100)).toEqual([]);
  });
});
