import { type Kysely, sql } from 'kysely';
import type { Schema } from '../../schema.js';
import type { VectorSearch } from '../sql-dialect.js';
import { cosine, norm, readVector, vectorBytes } from '../vectors.js';

/**
 * PostgreSQL's similarity search, chosen by the type of `memory_embeddings.vector` (read once at start):
 * pgvector's `vector` where migration 0016 could create the extension, else `bytea`. docs/memory-search.md
 * ("Storage: sqlite-vec, pgvector, and the bytea fallback") explains both, how pgvector is installed
 * and what happens when it is installed after migration 0016 ran.
 */
export async function postgresVectorSearch(db: Kysely<Schema>): Promise<VectorSearch> {
  const rows = await sql<{ type: string; schema: string }>`
    select t.typname as type, n.nspname as schema from pg_attribute a
    join pg_type t on t.oid = a.atttypid join pg_namespace n on n.oid = t.typnamespace
    where a.attrelid = to_regclass('memory_embeddings') and a.attname = 'vector' and not a.attisdropped`.execute(db);
  const column = rows.rows[0];
  return column?.type === 'vector' ? pgvectorSearch(column.schema) : byteaVectorSearch;
}

/** pgvector's largest `vector` (its VECTOR_MAX_DIM). */
const PGVECTOR_MAX_DIMENSIONS = 16_000;

/** Float32 values in pgvector's text form (float32 values print and parse back exactly). */
function pgvectorText(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/** For storage: null where pgvector refuses the vector (too large; infinite after rounding to float32). */
function pgvectorValue(vector: Float32Array): string | null {
  if (vector.length > PGVECTOR_MAX_DIMENSIONS || !vector.every(Number.isFinite)) return null;
  return pgvectorText(vector);
}

/**
 * With pgvector: an exact scan inside PostgreSQL of every vector the user has in the space, by cosine
 * distance (`<=>`), no index: models differ in size and an approximate index would make results depend on
 * its tuning. The (user_id, model, dimensions) index keeps the scan to the user's own rows; no other user's
 * vector is read. Names are qualified by the extension's schema, so search_path does not matter.
 */
export function pgvectorSearch(schema: string): VectorSearch {
  const quoted = `"${schema.replaceAll('"', '""')}"`;
  const distance = sql.raw(`operator(${quoted}.<=>)`);
  const type = sql.raw(`${quoted}.vector`);
  return {
    method: 'pgvector',
    exhaustive: true,
    encode: pgvectorValue,
    async nearest(db, userId, space, vector, limit) {
      // A zero vector's distance is NaN, which PostgreSQL sorts after every number: it is cut here, and
      // reaches the limit only when there are fewer real matches (never taken as a perfect match).
      const rows = await sql<{ seq: string; distance: number | null }>`
        select memory_seq as seq, vector ${distance} ${pgvectorText(vector)}::${type} as distance
        from memory_embeddings
        where user_id = ${userId} and model = ${space.model} and dimensions = ${space.dimensions}
          and vector is not null
        order by distance, memory_seq desc limit ${limit}`.execute(db);
      return rows.rows
        .filter((row) => row.distance !== null && !Number.isNaN(Number(row.distance)))
        .map((row) => ({ seq: Number(row.seq), similarity: 1 - Number(row.distance) }));
    },
    async similarities(db, userId, space, vector, seqs) {
      if (seqs.length === 0) return new Map();
      const rows = await sql<{ seq: string; distance: number | null }>`
        select memory_seq as seq, vector ${distance} ${pgvectorText(vector)}::${type} as distance
        from memory_embeddings
        where memory_seq = any(${seqs.map(String)}::bigint[])
          and user_id = ${userId} and model = ${space.model} and dimensions = ${space.dimensions}
          and vector is not null`.execute(db);
      return new Map(
        rows.rows
          .filter((row) => row.distance !== null && !Number.isNaN(Number(row.distance)))
          .map((row) => [Number(row.seq), 1 - Number(row.distance)]),
      );
    },
  };
}

/**
 * PostgreSQL without pgvector: vectors are `bytea` and the similarity is an exact scan in the application
 * over the user's `scan` newest memories of the space (EMBEDDINGS_SCAN_LIMIT). Older memories are still
 * found by keywords, and by similarity once they are among the keyword candidates.
 */
export const byteaVectorSearch: VectorSearch = {
  method: 'bytea',
  exhaustive: false,
  encode: vectorBytes,
  async nearest(db, userId, space, vector, limit, scan) {
    const rows = await sql<{ seq: string; vector: Uint8Array }>`
      select memory_seq as seq, vector from memory_embeddings
      where user_id = ${userId} and model = ${space.model} and dimensions = ${space.dimensions}
        and vector is not null
      order by memory_seq desc limit ${scan}`.execute(db);
    const queryNorm = norm(vector);
    return (
      rows.rows
        .map((row) => ({ seq: Number(row.seq), similarity: cosine(vector, readVector(row.vector), queryNorm) }))
        // A zero vector has no similarity: left out, as on SQLite.
        .filter((row) => !Number.isNaN(row.similarity))
        .sort((a, b) => b.similarity - a.similarity || b.seq - a.seq)
        .slice(0, limit)
    );
  },
  async similarities(db, userId, space, vector, seqs) {
    if (seqs.length === 0) return new Map();
    const rows = await sql<{ seq: string; vector: Uint8Array }>`
      select memory_seq as seq, vector from memory_embeddings
      where memory_seq = any(${seqs.map(String)}::bigint[])
        and user_id = ${userId} and model = ${space.model} and dimensions = ${space.dimensions}
        and vector is not null`.execute(db);
    const queryNorm = norm(vector);
    return new Map(
      rows.rows
        .map((row) => [Number(row.seq), cosine(vector, readVector(row.vector), queryNorm)] as const)
        .filter(([, similarity]) => !Number.isNaN(similarity)),
    );
  },
};
