import { Migrator } from 'kysely';
import { openDatabase } from '../../src/storage/database.js';
import { memoryEmbeddingsPgvector } from '../../src/storage/migrations/0016-memory-embeddings-pgvector.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { DIALECTS, type Dialect } from './databases.js';
import { createTestServices, type TestServices } from './services.js';

/**
 * The ways semantic search's vectors are stored: each dialect as migrations leave it (PostgreSQL: pgvector
 * where the server offers it), and with PostgreSQL, `postgres-bytea`: a database migrated as on a server
 * without pgvector, so the `bytea` fallback is tested on every machine.
 */
export type VectorVariant = Dialect | 'postgres-bytea';
export const VECTOR_VARIANTS: VectorVariant[] = DIALECTS.includes('postgres')
  ? [...DIALECTS, 'postgres-bytea']
  : [...DIALECTS];

/** Migrates the PostgreSQL database at `url` to the latest version as if the server had no pgvector. */
export async function migrateWithoutPgvector(url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    const all = {
      ...migrations('postgres'),
      '0016-memory-embeddings-pgvector': memoryEmbeddingsPgvector('postgres', { available: async () => false }),
    };
    const { error } = await new Migrator({
      db: database.db,
      provider: { getMigrations: async () => all },
    }).migrateToLatest();
    if (error) throw error;
  } finally {
    await database.close();
  }
}

export function createVectorTestServices(variant: VectorVariant, env: Record<string, string>): Promise<TestServices> {
  return variant === 'postgres-bytea'
    ? createTestServices('postgres', env, {}, (database) => migrateWithoutPgvector(database.url))
    : createTestServices(variant, env);
}

/** Whether the PostgreSQL server at `url` offers pgvector (`create extension vector` can work). */
export async function pgvectorOffered(url: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("select 1 from pg_available_extensions where name = 'vector'")).rowCount === 1;
  } finally {
    await client.end();
  }
}
