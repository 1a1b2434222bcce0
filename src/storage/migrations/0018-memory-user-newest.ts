import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * PostgreSQL: an index on (user_id, -seq) that walks a user's memories newest first, for keyword candidates
 * ordered `ORDER BY -seq` (dialects/postgres/memory-search.ts). Ordered by `seq DESC`, the planner walked the
 * primary key backwards past every other user's newer memories (100,000 rows filtered out before the first
 * match for a user who was not the latest writer, 128 ms; docs/performance.md, session 8); an index on
 * (user_id, seq) was not chosen over it. The expression is what only this index can give in order, so the
 * planner weighs walking the user's memories against the GIN index and picks by the word's frequency.
 *
 * SQLite needs none: its keyword candidates come from FTS5 in rowid order. Frozen.
 */
export function memoryUserNewest(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create index memories_user_newest on memories (user_id, (-seq))`.execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`drop index if exists memories_user_newest`.execute(db);
    },
  };
}
