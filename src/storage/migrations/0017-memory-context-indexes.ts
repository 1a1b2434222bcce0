import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * PostgreSQL: two indexes that make every group of the automatic context (memory-store.ts
 * `contextCandidates`: per project group and priority rank, newest first) an index range, as on SQLite.
 *
 * - Global memories (`project_name IS NULL`): a partial index on (user_id, priority_rank, recency_ms). Without
 *   it the planner walked the user's (user_id, priority_rank, recency_ms) index newest first expecting to stop
 *   early, and for a rank with no global memory read every memory of that rank (81 ms for one empty group at
 *   100,000 memories; docs/memory-search.md, *Vectors at 100k*).
 * - Descendants (`project/…`): an index on `project_name COLLATE "C"`, whose byte order makes a descendant
 *   range exact (dialects/postgres/paths.ts; the database's own collation may ignore punctuation).
 *
 * SQLite needs neither: `IS NULL` is an equality in its (user_id, project_name, priority_rank, recency_ms)
 * index and it compares bytes. Frozen.
 */
export function memoryContextIndexes(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create index memories_user_global_rank on memories (user_id, priority_rank, recency_ms)
        where project_name is null`.execute(db);
      await sql`create index memories_user_project_c_rank
        on memories (user_id, (project_name collate "C"), priority_rank, recency_ms)`.execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`drop index if exists memories_user_project_c_rank`.execute(db);
      await sql`drop index if exists memories_user_global_rank`.execute(db);
    },
  };
}
