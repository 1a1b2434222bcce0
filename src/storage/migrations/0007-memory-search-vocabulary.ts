import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * PostgreSQL ranks memories like SQLite (issue 16): the application scores the candidates from their
 * analysed words (`memories.search_terms`) with the searching user's own statistics. This adds what SQLite
 * already had: per-user counts (`memory_search_stats`), per-user term document counts (`memory_terms`, which
 * SQLite reads from fts5vocab; `term` in the "C" collation so a prefix is an index range), and a GIN index
 * over the analysed words themselves (`search_tokens`: the same terms as SQLite's FTS5 rows, no second
 * analysis). The old English `search_vector` stays for now (unused by search). SQLite: nothing. Frozen.
 */
export function memorySearchVocabulary(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await db.schema
        .createTable('memory_search_stats')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('documents', 'integer', (c) => c.notNull())
        .addColumn('tokens', 'bigint', (c) => c.notNull())
        .execute();
      await sql`insert into memory_search_stats (user_id, documents, tokens)
        select user_id, count(*), sum(token_count) from memories group by user_id`.execute(db);
      await sql`create table memory_terms (
        user_id text not null references users(id) on delete cascade,
        term text collate "C" not null,
        documents integer not null,
        primary key (user_id, term))`.execute(db);
      await sql`insert into memory_terms (user_id, term, documents)
        select m.user_id, t.term, count(*) from memories m
        cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
        where t.term <> ''
        group by m.user_id, t.term`.execute(db);
      await sql`alter table memories add column search_tokens tsvector generated always as (
        array_to_tsvector(array_remove(string_to_array(btrim(search_terms), ' '), ''))) stored`.execute(db);
      await sql`create index memories_search_tokens on memories using gin (search_tokens)`.execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`drop index memories_search_tokens`.execute(db);
      await sql`alter table memories drop column search_tokens`.execute(db);
      await db.schema.dropTable('memory_terms').execute();
      await db.schema.dropTable('memory_search_stats').execute();
    },
  };
}
