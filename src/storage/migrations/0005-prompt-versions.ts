import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * This migration's own copy of the reference rule as it stood when it was written (migrations never import
 * application code): `@slug` not preceded by a letter, digit, `_`, `.` or `@` and not glued to what follows.
 */
const REFERENCE = /(?<![\p{L}\p{N}_.@])@([a-z0-9]+(?:-[a-z0-9]+)*)(?![\p{L}\p{N}_])/gu;
const MAX_SLUG = 100;
const BATCH = 500;

/**
 * Prompt lifecycle: the current `version` and `variable_schema` on each prompt, immutable versions
 * (version 1 of every existing prompt is its current state), and the reference graph (which slugs each
 * prompt's content references) so "referenced by" is an indexed lookup. Frozen.
 */
export function promptVersions(dialect: MigrationDialect): Migration {
  const pg = dialect === 'postgres';
  const json = pg ? 'jsonb' : 'text';
  const emptyObject = pg ? sql`'{}'::jsonb` : sql`'{}'`;

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('prompts')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema
        .alterTable('prompts')
        .addColumn('variable_schema', sql.raw(json), (c) => c.notNull().defaultTo(emptyObject))
        .execute();

      await db.schema
        .createTable('prompt_versions')
        .addColumn('prompt_id', 'text', (c) => c.notNull().references('prompts.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('labels', sql.raw(json), (c) => c.notNull())
        .addColumn('variable_schema', sql.raw(json), (c) => c.notNull())
        .addColumn('commit_message', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('prompt_versions_pk', ['prompt_id', 'version'])
        .execute();
      await sql`
        insert into prompt_versions
          (prompt_id, user_id, version, title, description, content, labels, variable_schema, commit_message, created_at)
        select id, user_id, 1, title, description, content, labels, variable_schema, null, updated_at from prompts
      `.execute(db);

      await db.schema
        .createTable('prompt_references')
        .addColumn('prompt_id', 'text', (c) => c.notNull().references('prompts.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('target_slug', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('prompt_references_pk', ['prompt_id', 'target_slug'])
        .execute();
      await db.schema
        .createIndex('prompt_references_user_target')
        .on('prompt_references')
        .columns(['user_id', 'target_slug', 'prompt_id'])
        .execute();

      // The graph of existing prompts, a batch at a time (keyset by id) so memory stays bounded.
      let after = '';
      for (;;) {
        const rows: { id: string; user_id: string; content: string }[] = await db
          .selectFrom('prompts')
          .select(['id', 'user_id', 'content'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(BATCH)
          .execute();
        if (rows.length === 0) break;
        const edges = rows.flatMap((row) => {
          const slugs = new Set<string>();
          for (const match of row.content.matchAll(REFERENCE)) {
            const slug = match[1];
            if (slug !== undefined && slug.length <= MAX_SLUG) slugs.add(slug);
          }
          return [...slugs].map((slug) => ({ prompt_id: row.id, user_id: row.user_id, target_slug: slug }));
        });
        for (let i = 0; i < edges.length; i += BATCH) {
          await db
            .insertInto('prompt_references')
            .values(edges.slice(i, i + BATCH))
            .execute();
        }
        after = rows[rows.length - 1]?.id ?? after;
      }
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('prompt_references').execute();
      await db.schema.dropTable('prompt_versions').execute();
      await db.schema.alterTable('prompts').dropColumn('variable_schema').execute();
      await db.schema.alterTable('prompts').dropColumn('version').execute();
    },
  };
}
