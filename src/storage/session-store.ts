import type { Kysely } from 'kysely';
import type { SessionStore } from '../domain/accounts/session-store.js';
import type { Schema } from './schema.js';

export function createSessionStore(db: Kysely<Schema>): SessionStore {
  return {
    async insert(session) {
      await db
        .insertInto('sessions')
        .values({
          token_hash: session.tokenHash,
          user_id: session.userId,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .execute();
    },
    async findValid(tokenHash, now) {
      const row = await db
        .selectFrom('sessions')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return (
        row && { tokenHash: row.token_hash, userId: row.user_id, createdAt: row.created_at, expiresAt: row.expires_at }
      );
    },
    async extend(tokenHash, expiresAt) {
      await db.updateTable('sessions').set({ expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
    },
    async delete(tokenHash) {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },
    async deleteAllForUser(userId, keep) {
      let query = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (keep) query = query.where('token_hash', '<>', keep);
      await query.execute();
    },
    async insertInvite(codeHash, createdBy, at) {
      await db
        .insertInto('invites')
        .values({ code_hash: codeHash, created_by: createdBy, created_at: at, used_by: null, used_at: null })
        .execute();
    },
    async inviteUsable(codeHash) {
      const row = await db
        .selectFrom('invites')
        .select('code_hash')
        .where('code_hash', '=', codeHash)
        .where('used_by', 'is', null)
        .executeTakeFirst();
      return row !== undefined;
    },
    async redeemInvite(codeHash, usedBy, at) {
      const result = await db
        .updateTable('invites')
        .set({ used_by: usedBy, used_at: at })
        .where('code_hash', '=', codeHash)
        .where('used_by', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
