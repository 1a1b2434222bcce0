import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { BundleStore } from '../domain/bundles/bundle-store.js';
import type { Change } from '../domain/common/audit.js';
import type { MemoryRecord } from '../domain/memories/memory-store.js';
import type { PromptVersion } from '../domain/prompts/prompt-schemas.js';
import type { PromptEnvironmentRecord } from '../domain/prompts/prompt-store.js';
import { toRecord as artifactRecord, toVersionRow } from './artifact-store.js';
import { readBool, readCount } from './codec.js';
import type { SqlDialect } from './dialects/sql-dialect.js';
import { toRecord as memoryRecord } from './memory-store.js';
import { keptVersionRow, toVersionRecord as memoryVersionRecord } from './memory-versions.js';
import { toRecord as promptRecord, toVersion } from './prompt-store.js';
import type { Schema } from './schema.js';

/**
 * One batch of the user's `rows`: those whose key comes after `after`, in key order. Paging by key rather
 * than by offset means rows written or deleted during an export do not shift the batches after them.
 */
function keysetBatch<TB extends keyof Schema, O>(
  rows: SelectQueryBuilder<Schema, TB, O>,
  key: 'id' | 'seq' | 'version',
  userId: string,
  after: string | number,
  limit: number,
) {
  // References by name: a query generic over its table cannot name the columns as typed strings.
  return rows
    .where(sql.ref('user_id'), '=', userId)
    .where(sql.ref(key), '>', after)
    .orderBy(sql.ref(key))
    .limit(limit)
    .execute();
}

/** Export reads (keyset batches, always scoped by user) and the inserts import needs. */
export function createBundleStore(
  db: Kysely<Schema>,
  dialect: SqlDialect,
  memories: { insertAtVersion(memory: MemoryRecord, change: Change, version: number): Promise<void> },
): BundleStore {
  return {
    async prompts(userId, afterId, limit) {
      const rows = await keysetBatch(db.selectFrom('prompts').selectAll(), 'id', userId, afterId, limit);
      return rows.map(promptRecord);
    },

    async promptVersions(userId, promptIds) {
      const byPrompt = new Map<string, PromptVersion[]>();
      if (promptIds.length === 0) return byPrompt;
      const rows = await db
        .selectFrom('prompt_versions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('prompt_id', 'in', promptIds)
        .orderBy('prompt_id')
        .orderBy('version')
        .execute();
      for (const row of rows) {
        const list = byPrompt.get(row.prompt_id) ?? [];
        list.push(toVersion(row));
        byPrompt.set(row.prompt_id, list);
      }
      return byPrompt;
    },

    async promptEnvironments(userId, promptIds) {
      const byPrompt = new Map<string, PromptEnvironmentRecord[]>();
      if (promptIds.length === 0) return byPrompt;
      const rows = await db
        .selectFrom('prompt_environments')
        .selectAll()
        .where('user_id', '=', userId)
        .where('prompt_id', 'in', promptIds)
        .orderBy('prompt_id')
        .orderBy('name')
        .execute();
      for (const row of rows) {
        const list = byPrompt.get(row.prompt_id) ?? [];
        list.push({
          name: row.name,
          version: row.version,
          marketplace: readBool(row.marketplace),
          updatedAt: row.updated_at,
        });
        byPrompt.set(row.prompt_id, list);
      }
      return byPrompt;
    },

    async memories(userId, afterSeq, limit) {
      const rows = await keysetBatch(db.selectFrom('memories').selectAll(), 'seq', userId, afterSeq, limit);
      return rows.map((row) => ({ ...memoryRecord(row), version: row.version }));
    },

    async memoryVersions(userId, seqs, from, limit) {
      // One query per `limit` versions of a batch of memories, never one per memory.
      const rows = await db
        .selectFrom('memory_versions as v')
        .innerJoin('memories as m', 'm.id', 'v.memory_id')
        .select(['v.memory_id', 'v.version', 'v.text', 'v.project_name', 'v.metadata', 'v.created_at', 'm.seq'])
        .where('v.user_id', '=', userId)
        .where('m.user_id', '=', userId)
        .where('m.seq', '>', seqs.after)
        .where('m.seq', '<=', seqs.last)
        .where((eb) =>
          eb.or([eb('m.seq', '>', from.seq), eb.and([eb('m.seq', '=', from.seq), eb('v.version', '>', from.version)])]),
        )
        .orderBy('m.seq')
        .orderBy('v.version')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...memoryVersionRecord(row), memoryId: row.memory_id, seq: readCount(row.seq) }));
    },

    async artifacts(userId, afterSeq, limit) {
      const rows = await keysetBatch(db.selectFrom('artifacts').selectAll(), 'seq', userId, afterSeq, limit);
      return rows.map(artifactRecord);
    },

    async artifactVersions(userId, artifactId, afterVersion, limit) {
      const versions = db.selectFrom('artifact_versions').selectAll().where('artifact_id', '=', artifactId);
      const rows = await keysetBatch(versions, 'version', userId, afterVersion, limit);
      return rows.map((row) => ({
        version: row.version,
        content: row.content,
        contentType: row.content_type,
        sizeBytes: readCount(row.size_bytes),
        sha256: row.sha256,
        createdAt: row.created_at,
      }));
    },

    async insertMemory(memory, change, version = 1) {
      try {
        await memories.insertAtVersion(memory, change, version);
        return true;
      } catch (error) {
        if (dialect.isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async insertMemoryVersion(userId, memoryId, version) {
      await db
        .insertInto('memory_versions')
        .values(keptVersionRow(userId, memoryId, version))
        .execute();
    },

    async insertArtifactVersion(userId, artifactId, version) {
      await db
        .insertInto('artifact_versions')
        .values(toVersionRow(userId, artifactId, version))
        .execute();
    },
  };
}
