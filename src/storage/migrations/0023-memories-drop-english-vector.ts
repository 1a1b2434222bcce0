import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * PostgreSQL: drops `memories.search_vector` (an English `to_tsvector` of each memory's text, category and
 * tags, stored) and its GIN index `memories_search`. Memory search stopped reading them at migration 0007
 * (the application's own analysis in `search_tokens`, and since 0020 `memory_postings`), but every memory
 * write still parsed and stemmed its whole text in the server and added every word to that index: work on
 * each create and update for nothing (docs/performance.md, session 16). Artifacts keep their own
 * `search_vector`. SQLite: nothing (its memories never had one). Frozen.
 */
export function memoriesDropEnglishVector(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`drop index if exists memories_search`.execute(db);
      await sql`alter table memories drop column if exists search_vector`.execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`alter table memories add column search_vector tsvector generated always as (
        to_tsvector('english', text || ' ' || coalesce(category, '') || ' ' || tags_text)) stored`.execute(db);
      await sql`create index memories_search on memories using gin (search_vector)`.execute(db);
    },
  };
}
