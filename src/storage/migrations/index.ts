import type { Migration } from 'kysely';
import { initial } from './0001-initial.js';
import { memories } from './0002-memories.js';
import { artifacts } from './0003-artifacts.js';
import { sessions } from './0004-sessions.js';
import { promptVersions } from './0005-prompt-versions.js';
import { memorySearchTenancy } from './0006-memory-search-tenancy.js';
import { memorySearchVocabulary } from './0007-memory-search-vocabulary.js';
import { memoryDedupe } from './0009-memory-dedupe.js';

export type MigrationDialect = 'sqlite' | 'postgres';

/** Every migration, by name; names sort in the order they apply. */
export function migrations(dialect: MigrationDialect): Record<string, Migration> {
  return {
    '0001-initial': initial(dialect),
    '0002-memories': memories(dialect),
    '0003-artifacts': artifacts(dialect),
    '0004-sessions': sessions(dialect),
    '0005-prompt-versions': promptVersions(dialect),
    '0006-memory-search-tenancy': memorySearchTenancy(dialect),
    '0007-memory-search-vocabulary': memorySearchVocabulary(dialect),
    '0009-memory-dedupe': memoryDedupe(dialect),
  };
}
