import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, parseDatabaseUrl } from './database.js';

describe('parseDatabaseUrl', () => {
  it('reads sqlite and postgres URLs and refuses others', () => {
    expect(parseDatabaseUrl('sqlite:./data/cairn.db')).toEqual({ dialect: 'sqlite', path: './data/cairn.db' });
    expect(parseDatabaseUrl('postgresql://h/db')).toEqual({ dialect: 'postgres', url: 'postgresql://h/db' });
    expect(() => parseDatabaseUrl('mysql://h/db')).toThrow(/sqlite: or postgres/);
    expect(() => parseDatabaseUrl('sqlite:')).toThrow(/file path/);
  });
});

describe('SQLite planner statistics', () => {
  // Issue 15: statistics taken by `optimize` while the full-text index was nearly empty made FTS5's own
  // page lookups scan its whole data table, so writes slowed down as the index grew. The plan is the proof.
  it('keeps FTS5 page lookups on the key after the index was analysed while nearly empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-stats-'));
    try {
      const url = `sqlite:${join(dir, 'cairn.db')}`;
      const first = await openDatabase(url);
      await migrateToLatest(first);
      // What `optimize` on a later open would do to the new, nearly empty index (2 rows in _fts_data).
      await sql`analyze`.execute(first.db);
      await first.close();

      const second = await openDatabase(url);
      try {
        for (const table of ['memories_fts_data', 'artifacts_fts_data']) {
          const plan = await sql<{ detail: string }>`explain query plan select block from ${sql.table(table)}
            where id >= 1 and id <= 5`.execute(second.db);
          expect(plan.rows.map((row) => row.detail).join('; '), table).toMatch(/SEARCH .* USING INTEGER PRIMARY KEY/);
        }
        // Statistics of other tables are left alone.
        const kept = await sql<{ n: number }>`select count(*) as n from sqlite_stat1`.execute(second.db);
        expect(Number(kept.rows[0]?.n)).toBeGreaterThan(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
