import type { Migration } from 'kysely';
import { initial } from './0001-initial.js';
import { memories } from './0002-memories.js';
import { artifacts } from './0003-artifacts.js';
import { sessions } from './0004-sessions.js';
import { promptVersions } from './0005-prompt-versions.js';
import { memorySearchTenancy } from './0006-memory-search-tenancy.js';
import { memorySearchVocabulary } from './0007-memory-search-vocabulary.js';
import { memoryDedupe } from './0009-memory-dedupe.js';
import { memoryLifecycle } from './0010-memory-lifecycle.js';
import { memoryVersions } from './0011-memory-versions.js';
import { promptEnvironments } from './0012-prompt-environments.js';
import { audit } from './0013-audit.js';
import { webhooks } from './0014-webhooks.js';
import { memoryEmbeddings } from './0015-memory-embeddings.js';
import { memoryEmbeddingsPgvector } from './0016-memory-embeddings-pgvector.js';
import { memoryContextIndexes } from './0017-memory-context-indexes.js';
import { memoryUserNewest } from './0018-memory-user-newest.js';
import { memorySearchGinDirect } from './0019-memory-search-gin-direct.js';
import { memoryPostings } from './0020-memory-postings.js';
import { usersPromptsStamp } from './0021-users-prompts-stamp.js';
import { memoryStamps } from './0022-memory-stamps.js';
import { memoriesDropEnglishVector } from './0023-memories-drop-english-vector.js';

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
    '0010-memory-lifecycle': memoryLifecycle(dialect),
    '0011-memory-versions': memoryVersions(dialect),
    '0012-prompt-environments': promptEnvironments(dialect),
    '0013-audit': audit(dialect),
    '0014-webhooks': webhooks(dialect),
    '0015-memory-embeddings': memoryEmbeddings(dialect),
    '0016-memory-embeddings-pgvector': memoryEmbeddingsPgvector(dialect),
    '0017-memory-context-indexes': memoryContextIndexes(dialect),
    '0018-memory-user-newest': memoryUserNewest(dialect),
    '0019-memory-search-gin-direct': memorySearchGinDirect(dialect),
    '0020-memory-postings': memoryPostings(dialect),
    '0021-users-prompts-stamp': usersPromptsStamp(dialect),
    '0022-memory-stamps': memoryStamps(dialect),
    '0023-memories-drop-english-vector': memoriesDropEnglishVector(dialect),
  };
}
