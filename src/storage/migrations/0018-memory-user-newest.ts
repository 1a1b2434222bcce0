import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * Indexes that walk one user's rows in `seq` order (docs/performance.md, session 8).
 *
 * - PostgreSQL: `memories (user_id, -seq)`, for keyword candidates ordered `ORDER BY -seq`
 *   (dialects/postgres/memory-search.ts). Ordered by `seq DESC`, the planner walked the primary key backwards
 *   past every other user's newer memories (100,000 rows filtered out before the first match for a user who
 *   was not the latest writer, 128 ms); an index on (user_id, seq) was not chosen over it. The expression is
 *   what only this index gives in order, so the planner weighs walking the user's memories against the GIN
 *   index and picks by the word's frequency.
 * - SQLite: `memories (user_id)` and `artifacts (user_id)`, whose entries are (user_id, rowid), i.e.
 *   (user_id, seq). Without statistics (a new database grown under one long-running process) the planner took
 *   an export batch (`user_id = ? AND seq > ? ORDER BY seq LIMIT ?`) and the versions of a range of memories
 *   through another index starting with user_id: every row of the user and a sort, for each batch.
 *
 * Frozen.
 */
export function memoryUserNewest(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`create index memories_user_newest on memories (user_id, (-seq))`.execute(db);
      } else {
        await sql`create index memories_user_seq on memories (user_id)`.execute(db);
        await sql`create index artifacts_user_seq on artifacts (user_id)`.execute(db);
      }
    },

    async down(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`drop index if exists memories_user_newest`.execute(db);
      } else {
        await sql`drop index if exists artifacts_user_seq`.execute(db);
        await sql`drop index if exists memories_user_seq`.execute(db);
      }
    },
  };
}
