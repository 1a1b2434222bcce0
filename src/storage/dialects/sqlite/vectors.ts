import { type Kysely, sql } from 'kysely';
import type { Schema } from '../../schema.js';
import type { VectorSearch } from '../sql-dialect.js';
import { vectorBytes } from '../vectors.js';

/**
 * SQLite: an exact scan of the user's vectors of one space inside SQLite, with sqlite-vec's
 * `vec_distance_cosine` (loaded on the connection when embeddings are configured: database.ts). The
 * (user_id, model, dimensions) index keeps the scan to the user's own rows; no other user's vector is read.
 */
export const sqliteVectorSearch: VectorSearch = {
  method: 'sqlite-vec',
  exhaustive: true,
  encode: vectorBytes,
  async nearest(db, userId, space, vector, limit) {
    // A zero vector has no cosine distance (null): left out, never taken as a perfect match.
    const rows = await sql<{ seq: number; distance: number }>`
      select seq, distance from (
        select memory_seq as seq, vec_distance_cosine(vector, ${vectorBytes(vector)}) as distance
        from memory_embeddings
        where user_id = ${userId} and model = ${space.model} and dimensions = ${space.dimensions}
          and vector is not null
      ) where distance is not null
      order by distance limit ${limit}`.execute(db);
    return rows.rows.map((row) => ({ seq: Number(row.seq), similarity: 1 - Number(row.distance) }));
  },
  async similarities(db: Kysely<Schema>, userId, space, vector, seqs) {
    if (seqs.length === 0) return new Map();
    const rows = await sql<{ seq: number; distance: number }>`
      select memory_seq as seq, vec_distance_cosine(vector, ${vectorBytes(vector)}) as distance
      from memory_embeddings
      where memory_seq in (select value from json_each(${JSON.stringify(seqs)}))
        and user_id = ${userId} and model = ${space.model} and dimensions = ${space.dimensions}
        and vector is not null`.execute(db);
    return new Map(
      rows.rows.filter((row) => row.distance !== null).map((row) => [Number(row.seq), 1 - Number(row.distance)]),
    );
  },
};
