import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * `users.prompts_stamp`: a counter that changes with every write of the user's prompts or of their
 * environment pointers. The key lookup reads it with the key, so an instance on PostgreSQL answers a prompt
 * read from memory while the counter is unchanged and sees another instance's change on its very next request
 * (domain/prompts/prompt-service.ts, docs/performance.md, session 12).
 *
 * The prompt store adds one first thing in each of its write transactions (so a user's prompt writes take
 * the user's row lock before any prompt row: one lock order, no deadlocks). On PostgreSQL triggers add one
 * as well, for writers that do not: an instance of an earlier version during a rolling upgrade, or SQL run
 * by hand. SQLite needs no trigger: its prompt cache follows the whole database's change stamp. Frozen.
 */
export function usersPromptsStamp(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        await sql`alter table users add column prompts_stamp integer not null default 0`.execute(db);
        return;
      }
      await sql`alter table users add column prompts_stamp bigint not null default 0`.execute(db);
      // A user deleted with their prompts has no row left to update: the update then changes nothing.
      await sql`create function cairn_prompts_changed() returns trigger language plpgsql as $$
        begin
          update users set prompts_stamp = prompts_stamp + 1
            where id = (case when tg_op = 'DELETE' then old.user_id else new.user_id end);
          return null;
        end $$`.execute(db);
      for (const table of ['prompts', 'prompt_environments']) {
        await sql`create trigger ${sql.id(`${table}_stamp`)} after insert or update or delete on ${sql.table(table)}
          for each row execute function cairn_prompts_changed()`.execute(db);
      }
    },

    async down(db: Kysely<any>) {
      if (dialect === 'postgres') {
        for (const table of ['prompts', 'prompt_environments']) {
          await sql`drop trigger if exists ${sql.id(`${table}_stamp`)} on ${sql.table(table)}`.execute(db);
        }
        await sql`drop function if exists cairn_prompts_changed()`.execute(db);
      }
      await sql`alter table users drop column prompts_stamp`.execute(db);
    },
  };
}
