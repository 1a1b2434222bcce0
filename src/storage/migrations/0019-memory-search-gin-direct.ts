import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * PostgreSQL: the keyword index (`memories_search_tokens`, GIN) takes new entries straight into its tree
 * (`fastupdate = off`) instead of its pending list.
 *
 * Every search records an access on the memories it returns, and that update changes `recency_ms`, a
 * column of the context indexes, so it is never a HOT update: each one adds the row's words to every index
 * of `memories`, the GIN ones included. With the pending list on, those entries piled up unsorted (up to
 * `gin_pending_list_limit`, 4 MB) until a vacuum or the limit merged them, and every keyword query read the
 * whole list: 400 pages after ~4,600 accesses at 100,000 memories, 2 ms and 400 buffers on each candidate
 * query of a rare word (10 buffers without it). Inserting directly costs the writes a little more; the
 * access updates are written in the background, off the search path. The list already there is merged now.
 *
 * SQLite: nothing (FTS5 is not touched by an access). Frozen.
 */
export function memorySearchGinDirect(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`alter index memories_search_tokens set (fastupdate = off)`.execute(db);
      await sql`select gin_clean_pending_list('memories_search_tokens'::regclass)`.execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`alter index memories_search_tokens reset (fastupdate)`.execute(db);
    },
  };
}
