import { type Kysely, sql } from 'kysely';
import type { Schema } from './schema.js';

/**
 * PostgreSQL's planner statistics, kept where nothing else keeps them. Autovacuum analyses a table once
 * 50 rows + 10% of it have changed since its last ANALYZE; a server run with `autovacuum = off` (it
 * happens: tuned or test installations) never analyses, and every memory query then plans as if the
 * tables were empty: memory search at 100k + 100k memories went from p50 9 ms to 54 ms, p95 17 to 388 ms,
 * the automatic context from 2 ms to 42 ms (docs/performance.md, session 11). This analyses, with
 * autovacuum's own threshold, each table of the schema that has passed it, so where autovacuum runs it
 * finds nothing to do. One instance at a time (a transaction-scoped advisory lock: the others skip).
 * Returns the tables analysed.
 */
export async function refreshPlannerStatistics(db: Kysely<Schema>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const { rows: locked } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(hashtextextended('cairn planner statistics', 0)) as locked`.execute(trx);
    if (!locked[0]?.locked) return [];
    const { rows } = await sql<{ relname: string }>`
      select relname from pg_stat_user_tables
      where schemaname = current_schema()
        and n_mod_since_analyze > ${sql.lit(STALE_ROWS)} + ${sql.lit(STALE_SHARE)} * n_live_tup
      order by relname`.execute(trx);
    for (const { relname } of rows) await sql`analyze ${sql.id(relname)}`.execute(trx);
    return rows.map((row) => row.relname);
  });
}

/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor's defaults. */
const STALE_ROWS = 50;
const STALE_SHARE = 0.1;
