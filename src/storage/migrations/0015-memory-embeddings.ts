import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * Optional semantic search (issue 17): one vector per memory, in the portable form both databases
 * store — float32 little-endian in a blob (SQLite, compared with sqlite-vec's `vec_distance_cosine`) or
 * `bytea` (PostgreSQL, compared in a bounded exact scan; docs/memory-search.md explains the trade-off and
 * the pgvector path). `model` and `dimensions` say which space a vector lives in: searches compare only
 * vectors of the configured space, and rows of another are re-embedded. `source_updated_at` is the
 * memory's `updated_at` the vector was computed for (a later edit makes it stale); `text_hash` lets a
 * metadata-only edit skip the provider. A null `vector` records a failure (`error`) for backfill to retry.
 * The table stays empty unless EMBEDDINGS_URL is set. Frozen.
 */
export function memoryEmbeddings(dialect: MigrationDialect): Migration {
  const pg = dialect === 'postgres';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('memory_embeddings')
        .addColumn('memory_seq', pg ? 'bigint' : 'integer', (c) =>
          c.primaryKey().references('memories.seq').onDelete('cascade'),
        )
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('dimensions', 'integer', (c) => c.notNull())
        .addColumn('text_hash', 'text', (c) => c.notNull())
        .addColumn('source_updated_at', 'text', (c) => c.notNull())
        .addColumn('vector', pg ? sql.raw('bytea') : 'blob')
        .addColumn('error', 'text')
        .execute();
      // A user's vectors of one space, newest memories first: the similarity scan reads only these.
      await db.schema
        .createIndex('memory_embeddings_space')
        .on('memory_embeddings')
        .columns(['user_id', 'model', 'dimensions', 'memory_seq'])
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('memory_embeddings').execute();
    },
  };
}
