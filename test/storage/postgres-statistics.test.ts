import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrateToLatest, openDatabase } from '../../src/storage/database.js';
import { refreshPlannerStatistics } from '../../src/storage/postgres-statistics.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

// PostgreSQL only (SQLite refreshes its statistics with `pragma optimize`, database.ts).
describe.skipIf(!DIALECTS.includes('postgres'))('PostgreSQL planner statistics where autovacuum is off', () => {
  let target: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    target = await createTestDatabase('postgres');
    database = await openDatabase(target.url);
    await migrateToLatest(database);
    // A table autovacuum never analyses, whatever the server's setting: what `autovacuum = off` does to all.
    await sql`create table statistics_probe (n integer) with (autovacuum_enabled = false)`.execute(database.db);
  });

  afterAll(async () => {
    await database?.close();
    await target?.drop();
  });

  /** Rows changed since the last ANALYZE, as the cumulative statistics report them (flushed asynchronously). */
  async function changedRows() {
    const { rows } = await sql<{ n: string; analysed: Date | null }>`
      select n_mod_since_analyze as n, last_analyze as analysed from pg_stat_user_tables
      where relname = 'statistics_probe'`.execute(database.db);
    return { changed: Number(rows[0]?.n ?? 0), analysed: rows[0]?.analysed ?? null };
  }

  async function waitForChanges(atLeast: number) {
    for (let tries = 0; (await changedRows()).changed < atLeast; tries++) {
      if (tries > 200) throw new Error('statistics never reported the inserted rows');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('analyses a table past autovacuum’s threshold, once, and leaves it be below it', async () => {
    await sql`insert into statistics_probe select generate_series(1, 40)`.execute(database.db);
    await waitForChanges(40);
    expect(await refreshPlannerStatistics(database.db)).not.toContain('statistics_probe');
    expect((await changedRows()).analysed).toBeNull();

    await sql`insert into statistics_probe select generate_series(1, 1000)`.execute(database.db);
    await waitForChanges(1040);
    expect(await refreshPlannerStatistics(database.db)).toContain('statistics_probe');
    expect((await changedRows()).analysed).not.toBeNull();
    const { rows } = await sql<{ reltuples: number }>`
      select reltuples from pg_class where relname = 'statistics_probe'`.execute(database.db);
    expect(Number(rows[0]?.reltuples)).toBe(1040);
    // Analysed: nothing changed since, nothing to do.
    expect(await refreshPlannerStatistics(database.db)).not.toContain('statistics_probe');
  });

  it('skips while another instance is refreshing', async () => {
    await sql`insert into statistics_probe select generate_series(1, 2000)`.execute(database.db);
    await waitForChanges(2000);
    await database.db.transaction().execute(async (other) => {
      await sql`select pg_advisory_xact_lock(hashtextextended('cairn planner statistics', 0))`.execute(other);
      expect(await refreshPlannerStatistics(database.db)).toEqual([]);
    });
    expect(await refreshPlannerStatistics(database.db)).toContain('statistics_probe');
  });
});
