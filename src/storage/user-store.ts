import type { Kysely, Selectable } from 'kysely';
import type { UserRecord, UserStore } from '../domain/accounts/account-store.js';
import type { Change } from '../domain/common/audit.js';
import type { Tier } from '../domain/limits/rate-limit.js';
import { appendAudit, auditEntry } from './audit-store.js';
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

/** An account's audit entry, in the account's own trail: no content, so no hashes; the e-mail is its handle. */
const accountEntry = (
  change: Change,
  user: Pick<UserRecord, 'id' | 'email'>,
  action: 'created' | 'updated' | 'deleted',
) =>
  auditEntry(change, user.id, {
    objectType: 'account',
    objectId: user.id,
    objectHandle: user.email,
    action,
    hashBefore: null,
    hashAfter: null,
  });

export function createUserStore(db: Kysely<Schema>, dialect: SqlDialect): UserStore {
  return {
    async insert(user, change) {
      await writeOrConflict(
        dialect,
        () =>
          db.transaction().execute(async (trx) => {
            await trx
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
              .execute();
            await appendAudit(trx, accountEntry(change, user, 'created'));
          }),
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

    async update(user, patch, change) {
      await db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('users')
          .set({
            updated_at: change.at,
            ...(patch.tier !== undefined && { tier: patch.tier }),
            ...(patch.rateLimit !== undefined && { rate_limit: patch.rateLimit }),
            ...(patch.passwordHash !== undefined && { password_hash: patch.passwordHash }),
            ...(patch.isAdmin !== undefined && { is_admin: writeBool(patch.isAdmin) }),
          })
          .where('id', '=', user.id)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) await appendAudit(trx, accountEntry(change, user, 'updated'));
      });
    },

    async list() {
      const rows = await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toRecord);
    },

    async delete(user, change) {
      await db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('users').where('id', '=', user.id).executeTakeFirst();
        if (Number(result.numDeletedRows) > 0) await appendAudit(trx, accountEntry(change, user, 'deleted'));
      });
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
