import type { Kysely, Migration } from 'kysely';
import type { MigrationDialect } from './index.js';

/** Dashboard sessions (stored as SHA-256 of the cookie token) and one-time invite codes. Frozen. */
export function sessions(_dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
      await db.schema
        .createTable('invites')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('used_by', 'text')
        .addColumn('used_at', 'text')
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('invites').execute();
      await db.schema.dropTable('sessions').execute();
    },
  };
}
