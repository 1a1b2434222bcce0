import { sql } from 'kysely';
import { isJsonValue } from '../json-values.js';
import type { SqlDialect } from '../sql-dialect.js';
import { postgresArtifactSearch } from './artifact-search.js';
import { isUnavailable, isUniqueViolation } from './errors.js';
import { postgresMemorySearch, rebuildMemoryVocabulary } from './memory-search.js';
import { descendantOf } from './paths.js';
import { postgresVectorSearch } from './vectors.js';

/** Tables whose `seq` is an identity column. */
const SEQUENCED_TABLES = ['memories', 'artifacts', 'audit_events'];

export const postgresDialect: SqlDialect = {
  migrations: 'postgres',
  displayName: 'PostgreSQL',
  multiInstance: true,
  roundTrips: true,
  descendantOf,
  memorySearch: () => postgresMemorySearch,
  vectorSearch: postgresVectorSearch,
  artifactSearch: postgresArtifactSearch,
  storable: (value) => (isJsonValue(value) ? JSON.stringify(value) : value),
  async afterCopy(db) {
    // Identity columns continue after the copied values.
    for (const table of SEQUENCED_TABLES) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'seq'), coalesce((select max(seq) from ${sql.table(table)}), 0) + 1, false)`.execute(
        db,
      );
    }
    // Search statistics and term counts are kept by the store's writes, which a bulk copy bypasses.
    await rebuildMemoryVocabulary(db);
  },
  skipLocked: (query) => query.forUpdate().skipLocked(),
  isUniqueViolation,
  isUnavailable,
};
