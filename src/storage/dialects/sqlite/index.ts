import { isJsonValue } from '../json-values.js';
import type { SqlDialect } from '../sql-dialect.js';
import { sqliteArtifactSearch } from './artifact-search.js';
import { isUnavailable, isUniqueViolation } from './errors.js';
import { createSqliteMemorySearch } from './memory-search.js';
import { descendantOf } from './paths.js';
import { rebuildFullTextIndexes } from './rebuild-indexes.js';
import { sqliteVectorSearch } from './vectors.js';

export const sqliteDialect: SqlDialect = {
  migrations: 'sqlite',
  displayName: 'SQLite',
  // One process holds the file.
  multiInstance: false,
  roundTrips: false,
  descendantOf,
  memorySearch: createSqliteMemorySearch,
  vectorSearch: async () => sqliteVectorSearch,
  artifactSearch: sqliteArtifactSearch,
  // SQLite has no boolean or JSON type: 0/1 and text.
  storable: (value) =>
    typeof value === 'boolean' ? (value ? 1 : 0) : isJsonValue(value) ? JSON.stringify(value) : value,
  afterCopy: rebuildFullTextIndexes,
  skipLocked: (query) => query,
  isUniqueViolation,
  isUnavailable,
};
