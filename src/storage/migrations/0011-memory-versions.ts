import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * Memory history (issue 18, item 5), in the artifacts' shape: the memory row is its current version
 * (`memories.version`, 1 for every memory, existing ones included, with no extra row), and
 * `memory_versions` keeps the previous states, each a whole snapshot of the record's content columns (text,
 * project, metadata as JSON), so a later column of the memory becomes one more nullable column here.
 * `version_created_at` is when the current version was written; null on rows stored before this migration,
 * which read it as their `updated_at` (no rewrite of every row here). Frozen.
 */
export function memoryVersions(dialect: MigrationDialect): Migration {
  const json = dialect === 'postgres' ? 'jsonb' : 'text';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('memories')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('memories').addColumn('version_created_at', 'text').execute();
      await db.schema
        .createTable('memory_versions')
        .addColumn('memory_id', 'text', (c) => c.notNull().references('memories.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('project_name', 'text')
        .addColumn('metadata', sql.raw(json), (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('memory_versions_pk', ['memory_id', 'version'])
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('memory_versions').execute();
      await db.schema.alterTable('memories').dropColumn('version_created_at').execute();
      await db.schema.alterTable('memories').dropColumn('version').execute();
    },
  };
}
