import { sql } from 'kysely';
import type { VectorSearch } from '../sql-dialect.js';
import { cosine, norm, readVector } from '../vectors.js';

/**
 * PostgreSQL without pgvector (Debian's PostgreSQL packages do not carry it): vectors are `bytea` and the
 * similarity is an exact scan in the application over the user's `scan` newest memories of the space
 * (EMBEDDINGS_SCAN_LIMIT). Older memories are still found by keywords, and by similarity once they are
 * among the keyword candidates; docs/memory-search.md explains the bound and the pgvector path.
 */
export const postgresVectorSearch: VectorSearch = {
  exhaustive: false,
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
