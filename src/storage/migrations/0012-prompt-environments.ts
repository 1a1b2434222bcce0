import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * Prompt environments (issue 19, item 1): named pointers (`production`, `staging`, …) from a prompt to one
 * of its versions. The pointer's target is a foreign key into `prompt_versions`, so it can never name a
 * version that does not exist, and deleting the prompt (which deletes its versions) deletes its pointers.
 * `marketplace` marks the one pointer (at most one per prompt, kept so by the store) through which
 * marketplace-only keys see the prompt. Frozen.
 */
export function promptEnvironments(dialect: MigrationDialect): Migration {
  const pg = dialect === 'postgres';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('prompt_environments')
        .addColumn('prompt_id', 'text', (c) => c.notNull().references('prompts.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('marketplace', pg ? 'boolean' : 'integer', (c) => c.notNull().defaultTo(pg ? sql`false` : sql`0`))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('prompt_environments_pk', ['prompt_id', 'name'])
        .addForeignKeyConstraint(
          'prompt_environments_version_fk',
          ['prompt_id', 'version'],
          'prompt_versions',
          ['prompt_id', 'version'],
          (c) => c.onDelete('cascade'),
        )
        .execute();
      // Export reads a user's pointers by prompt.
      await db.schema
        .createIndex('prompt_environments_user_prompt')
        .on('prompt_environments')
        .columns(['user_id', 'prompt_id'])
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('prompt_environments').execute();
    },
  };
}
