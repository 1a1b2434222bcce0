import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * Accounts, API keys, hourly usage and prompts. Frozen: never edit a released migration and never import
 * application code here; add a new one instead.
 */
export function initial(dialect: MigrationDialect): Migration {
  const bool = dialect === 'postgres' ? 'boolean' : 'integer';
  const json = dialect === 'postgres' ? 'jsonb' : 'text';
  const count = dialect === 'postgres' ? 'bigint' : 'integer';
  const falseValue = dialect === 'postgres' ? sql`false` : sql`0`;

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('tier', 'text', (c) => c.notNull())
        .addColumn('rate_limit', 'integer')
        .addColumn('is_admin', sql.raw(bool), (c) => c.notNull().defaultTo(falseValue))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('integrations', sql.raw(json), (c) => c.notNull())
        .addColumn('legacy', sql.raw(bool), (c) => c.notNull().defaultTo(falseValue))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('request_count', sql.raw(count), (c) => c.notNull().defaultTo(0))
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_user_created').on('api_keys').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('usage_hourly')
        .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('hour_start', 'text', (c) => c.notNull())
        .addColumn('request_count', sql.raw(count), (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_hourly_pk', ['key_id', 'hour_start'])
        .execute();
      await db.schema
        .createIndex('usage_hourly_user_hour')
        .on('usage_hourly')
        .columns(['user_id', 'hour_start'])
        .execute();

      await db.schema
        .createTable('prompts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('search_text', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('available_in_mcp', sql.raw(bool), (c) => c.notNull())
        .addColumn('labels', sql.raw(json), (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('prompts_user_slug', ['user_id', 'slug'])
        .execute();
      await db.schema
        .createIndex('prompts_user_updated')
        .on('prompts')
        .columns(['user_id', 'updated_at', 'id'])
        .execute();
      await db.schema
        .createIndex('prompts_user_status_updated')
        .on('prompts')
        .columns(['user_id', 'status', 'updated_at', 'id'])
        .execute();

      await db.schema
        .createTable('prompt_labels')
        .addColumn('prompt_id', 'text', (c) => c.notNull().references('prompts.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('prompt_labels_pk', ['prompt_id', 'label'])
        .execute();
      await db.schema
        .createIndex('prompt_labels_user_label')
        .on('prompt_labels')
        .columns(['user_id', 'label', 'prompt_id'])
        .execute();
    },

    async down(db: Kysely<any>) {
      for (const table of ['prompt_labels', 'prompts', 'usage_hourly', 'api_keys', 'users']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
