import type { Kysely, Selectable } from 'kysely';
import type { UserRecord, UserStore } from '../domain/accounts/account-store.js';
import type { Tier } from '../domain/limits/rate-limit.js';
import { readBool, readCount, writeBool } from './codec.js';
import { writeOrConflict } from './conflict.js';
import type { SqlDialect } from './dialects/sql-dialect.js';
import type { Schema, UsersTable } from './schema.js';

const toRecord = (row: Selectable<UsersTable>): UserRecord => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  tier: row.tier as Tier,
  rateLimit: row.rate_limit,
  isAdmin: readBool(row.is_admin),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createUserStore(db: Kysely<Schema>, dialect: SqlDialect): UserStore {
  return {
    async insert(user) {
      await writeOrConflict(
        dialect,
        () =>
          db
            .insertInto('users')
            .values({
              id: user.id,
              email: user.email,
              password_hash: user.passwordHash,
              tier: user.tier,
              rate_limit: user.rateLimit,
              is_admin: writeBool(user.isAdmin),
              created_at: user.createdAt,
              updated_at: user.updatedAt,
            })
            .execute(),
        `A user with e-mail ${user.email} already exists`,
      );
    },

    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      return row && toRecord(row);
    },

    async findById(id) {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async update(id, patch, updatedAt) {
      await db
        .updateTable('users')
        .set({
          updated_at: updatedAt,
          ...(patch.tier !== undefined && { tier: patch.tier }),
          ...(patch.rateLimit !== undefined && { rate_limit: patch.rateLimit }),
          ...(patch.passwordHash !== undefined && { password_hash: patch.passwordHash }),
          ...(patch.isAdmin !== undefined && { is_admin: writeBool(patch.isAdmin) }),
        })
        .where('id', '=', id)
        .execute();
    },

    async list() {
      const rows = await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toRecord);
    },

    async delete(id) {
      await db.deleteFrom('users').where('id', '=', id).execute();
    },

    async count() {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return readCount(row.n);
    },
  };
}
