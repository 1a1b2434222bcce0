import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * PostgreSQL: a posting list per user and term, `memory_postings (user_id, term, seq)`, for the keyword
 * candidate streams (dialects/postgres/memory-search.ts): the primary key walked backwards gives one word's
 * memories newest first and stops at the stream's LIMIT, as SQLite's FTS5 rows (user-prefixed terms, in
 * rowid order) do. The GIN index over `search_tokens` cannot: a word in 1–25 % of a user's memories cost a
 * walk of thousands of heap rows to test the tsvector, or a bitmap of thousands and a sort.
 *
 * One row per distinct analysed term of a memory (the terms `memory_terms` counts), hidden and expired
 * memories included (visibility is read from `memories`). Each row carries what the streams narrow by
 * before reading a memory: whether it is high priority and its project, in the index (INCLUDE), so the
 * high-priority stream and the scope skip other memories inside the index. The in-project stream has its
 * own index, (user_id, project_name, term, seq), for memories in a project: walking the word's postings
 * for one project's share (a few percent) read tens of thousands of entries for a frequent word. Kept in
 * each write's transaction; rebuilt after a bulk copy. Filled here from the existing memories.
 *
 * SQLite: nothing (FTS5 is its posting list). Frozen.
 */
export function memoryPostings(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create table memory_postings (
        user_id text not null references users(id) on delete cascade,
        term text collate "C" not null,
        seq bigint not null,
        high boolean not null,
        project_name text)`.execute(db);
      await sql`insert into memory_postings (user_id, term, seq, high, project_name)
        select m.user_id, t.term, m.seq, coalesce(m.priority = 'high', false), m.project_name from memories m
        cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
        where t.term <> ''`.execute(db);
      await sql`alter table memory_postings add constraint memory_postings_pkey
        primary key (user_id, term, seq) include (high, project_name)`.execute(db);
      await sql`create index memory_postings_project on memory_postings (user_id, project_name, term, seq)
        where project_name is not null`.execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`drop table memory_postings`.execute(db);
    },
  };
}
