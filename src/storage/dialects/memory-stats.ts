import type { Kysely } from 'kysely';
import { precompileStatement } from '../precompiled.js';
import type { Schema } from '../schema.js';

/** Adds `documents` and `tokens` to a user's search statistics (negative to remove), inside the write's transaction. */
export async function addSearchStats(
  trx: Kysely<Schema>,
  userId: string,
  documents: number,
  tokens: number,
): Promise<void> {
  if (documents === 0 && tokens === 0) return;
  await upsertStats(trx, userId, documents, tokens).execute();
}

/** addSearchStats with its statement compiled once for `db` (precompiled.ts), run on each call's transaction. */
export function searchStatsWriter(db: Kysely<Schema>): typeof addSearchStats {
  const upsert = precompileStatement(
    (userId: string, documents: number, tokens: number) => upsertStats(db, userId, documents, tokens),
    3,
  );
  return async (trx, userId, documents, tokens) => {
    if (documents === 0 && tokens === 0) return;
    await upsert(trx, userId, documents, tokens);
  };
}

const upsertStats = (db: Kysely<Schema>, userId: string, documents: number, tokens: number) =>
  db
    .insertInto('memory_search_stats')
    .values({ user_id: userId, documents, tokens })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({
        documents: eb('memory_search_stats.documents', '+', documents),
        tokens: eb('memory_search_stats.tokens', '+', tokens),
      })),
    );

/** A user's corpus size and average analysed length, one primary-key read. */
export async function readSearchStats(
  db: Kysely<Schema>,
  userId: string,
): Promise<{ n: number; averageLength: number }> {
  const row = await db
    .selectFrom('memory_search_stats')
    .select(['documents', 'tokens'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const n = Number(row?.documents ?? 0);
  return { n, averageLength: n > 0 ? Number(row?.tokens ?? 0) / n : 0 };
}

/** The distinct tokens of an analysed text stored as ` tok tok `. */
export const distinctTokens = (searchTerms: string): string[] => [...new Set(searchTerms.split(' ').filter(Boolean))];
