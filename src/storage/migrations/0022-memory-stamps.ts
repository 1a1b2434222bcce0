import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * SQLite: `memory_stamps (user_id, stamp, previous)`, a value that changes with every change to one of the
 * user's memories that the near-duplicate check reads (a row inserted or deleted; its project, analysed
 * words or visibility updated), kept by triggers so that every writer keeps it: this process, another
 * instance, an operator's `cairn` command, SQL run by hand. `previous` is the value before the last change.
 *
 * The check keeps the newest memories of each project in memory (dialects/sqlite/recent-memories.ts) and
 * trusts them while the user's stamp is the one they were read at; an insert of this process moves them
 * along when `previous` is the stamp they hold (the insert was the only change since). Each new stamp is
 * random (52 bits, exact in a JavaScript number), never a counter: a transaction rolled back after a cache
 * took its stamp, then another write, must not produce that stamp again.
 *
 * `memories (user_id, project_name)` (with the rowid, `seq`): a project's memories newest first, which the
 * check reads into memory. PostgreSQL: nothing (its check walks `memory_postings`). Frozen.
 */
export function memoryStamps(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await sql`create table memory_stamps (
        user_id text primary key,
        stamp integer not null,
        previous integer) without rowid`.execute(db);
      await sql`insert into memory_stamps (user_id, stamp) select id, random() >> 12 from users`.execute(db);
      await sql`create trigger users_memory_stamp_insert after insert on users begin
        insert or replace into memory_stamps (user_id, stamp) values (new.id, random() >> 12);
      end`.execute(db);
      await sql`create trigger users_memory_stamp_delete after delete on users begin
        delete from memory_stamps where user_id = old.id;
      end`.execute(db);
      const bump = (user: string) =>
        sql.raw(`update memory_stamps set previous = stamp, stamp = random() >> 12 where user_id = ${user};`);
      await sql`create trigger memories_stamp_insert after insert on memories begin ${bump('new.user_id')} end`.execute(
        db,
      );
      await sql`create trigger memories_stamp_delete after delete on memories begin ${bump('old.user_id')} end`.execute(
        db,
      );
      await sql`create trigger memories_stamp_update
        after update of user_id, project_name, search_terms, visible_until on memories begin
          ${bump('old.user_id')}
          ${sql.raw('update memory_stamps set previous = stamp, stamp = random() >> 12 where user_id = new.user_id and new.user_id <> old.user_id;')}
        end`.execute(db);
      await sql`create index memories_user_project_seq on memories (user_id, project_name)`.execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await sql`drop index if exists memories_user_project_seq`.execute(db);
      for (const trigger of [
        'memories_stamp_update',
        'memories_stamp_delete',
        'memories_stamp_insert',
        'users_memory_stamp_delete',
        'users_memory_stamp_insert',
      ]) {
        await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
      }
      await sql`drop table if exists memory_stamps`.execute(db);
    },
  };
}
