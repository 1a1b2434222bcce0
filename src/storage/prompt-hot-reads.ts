import type { Kysely } from 'kysely';
import { precompile, precompiledVariants } from './precompiled.js';
import type { Schema } from './schema.js';

/** References a read checks at once with a precompiled query; longer lists are compiled per call. */
const PRECOMPILED_SLUG_LISTS = 16;

/** The reads of `GET /prompts/{id_or_slug}` (and of every prompt read), compiled once (precompiled.ts). */
export function hotReads(db: Kysely<Schema>) {
  const prompt = (column: 'id' | 'slug') =>
    precompile(
      db,
      (userId: string, value: string) =>
        db.selectFrom('prompts').selectAll().where('user_id', '=', userId).where(column, '=', value),
      2,
    );
  const slugs =
    (count: number) =>
    (userId: string, ...wanted: string[]) =>
      db.selectFrom('prompts').select('slug').where('user_id', '=', userId).where('slug', 'in', wanted.slice(0, count));
  return {
    byId: prompt('id'),
    bySlug: prompt('slug'),
    /** Which of `count` slugs name a prompt of the user: `(userId, ...slugs)`. */
    slugsIn: precompiledVariants((count: number) => precompile(db, slugs(count), count + 1), PRECOMPILED_SLUG_LISTS),
    /** The same, among the user's prompts of one status: `(userId, status, ...slugs)`. */
    slugsWithStatusIn: precompiledVariants(
      (count: number) =>
        precompile(
          db,
          (userId: string, status: string, ...wanted: string[]) =>
            slugs(count)(userId, ...wanted).where('status', '=', status),
          count + 2,
        ),
      PRECOMPILED_SLUG_LISTS,
    ),
  };
}

export type PromptHotReads = ReturnType<typeof hotReads>;
