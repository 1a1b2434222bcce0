import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * Memory lifecycle (issue 18, items 1–3): `expires_at` (ISO time or NULL), `pinned`, `superseded_by` (the id
 * of the newer memory that replaces this one, same user) and `visible_until`, derived from the three: NULL
 * (visible forever) when pinned or neither expiring nor superseded, else the earlier of the expiry and the
 * superseding memory's creation time. Searches, lists and the context keep `visible_until IS NULL OR
 * visible_until > now`; indexed with the user so the hidden set of a user is a range of one index, and
 * `superseded_by` with the user so removing a link (deleting the newer memory) finds its targets. Existing
 * memories stay visible (all NULL, not pinned). Frozen.
 */
export function memoryLifecycle(dialect: MigrationDialect): Migration {
  const pg = dialect === 'postgres';
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('memories').addColumn('expires_at', 'text').execute();
      await db.schema
        .alterTable('memories')
        .addColumn('pinned', pg ? 'boolean' : 'integer', (c) => c.notNull().defaultTo(pg ? sql`false` : sql`0`))
        .execute();
      await db.schema.alterTable('memories').addColumn('superseded_by', 'text').execute();
      await db.schema.alterTable('memories').addColumn('visible_until', 'text').execute();
      await db.schema
        .createIndex('memories_visible_until')
        .on('memories')
        .columns(['user_id', 'visible_until'])
        .where(sql.ref('visible_until'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('memories_superseded_by')
        .on('memories')
        .columns(['user_id', 'superseded_by'])
        .where(sql.ref('superseded_by'), 'is not', null)
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropIndex('memories_superseded_by').execute();
      await db.schema.dropIndex('memories_visible_until').execute();
      for (const column of ['visible_until', 'superseded_by', 'pinned', 'expires_at']) {
        await db.schema.alterTable('memories').dropColumn(column).execute();
      }
    },
  };
}
