import { type Kysely, sql } from 'kysely';
import type {
  EmbeddingCounts,
  EmbeddingStore,
  EmbeddingWrite,
  PendingEmbedding,
  SpaceQuery,
} from '../domain/memories/embedding-store.js';
import { readCount } from './codec.js';
import { scopeCondition } from './dialects/memory-scope.js';
import type { SqlDialect, VectorSearch } from './dialects/sql-dialect.js';
import { filterCondition, toRankingRow } from './memory-store.js';
import type { Schema } from './schema.js';

/**
 * A row needs a vector in `space`: none yet, another space, or computed for an older version of the
 * memory. (A failure recorded before the dimensions were known is "failed", not "stale".)
 */
function staleCondition(space: SpaceQuery) {
  return sql<boolean>`(e.memory_seq is null or e.model <> ${space.model}
    ${space.dimensions === undefined ? sql`` : sql`or (e.vector is not null and e.dimensions <> ${space.dimensions})`}
    or e.source_updated_at <> m.updated_at)`;
}

interface PendingRow {
  seq: unknown;
  user_id: string;
  text: string;
  updated_at: string;
  text_hash: string | null;
  model: string | null;
  dimensions: unknown;
  failed: unknown;
}

const toPending = (row: PendingRow): PendingEmbedding => ({
  seq: readCount(row.seq),
  userId: row.user_id,
  text: row.text,
  updatedAt: row.updated_at,
  storedHash: row.text_hash,
  storedSpace: row.model === null ? null : { model: row.model, dimensions: readCount(row.dimensions) },
  storedFailed: readCount(row.failed) === 1,
});

const PENDING_COLUMNS = sql`m.seq, m.user_id, m.text, m.updated_at, e.text_hash, e.model, e.dimensions,
  case when e.memory_seq is not null and e.vector is null then 1 else 0 end as failed`;

/**
 * Vectors of memories (semantic search, migration 0015). Every read is scoped by user except the
 * operator's backfill and status, which walk all users unless given one.
 */
export function createEmbeddingStore(
  db: Kysely<Schema>,
  dialect: SqlDialect,
  options: { vectors: VectorSearch; scanLimit: number },
): EmbeddingStore {
  const search = dialect.memorySearch(db);
  const { vectors } = options;
  return {
    async nearest(userId, query) {
      const space = { model: query.model, dimensions: query.vector.length };
      const near = await vectors.nearest(db, userId, space, query.vector, query.limit, options.scanLimit);
      if (near.length === 0) return [];
      const similarity = new Map(near.map((row) => [row.seq, row.similarity]));
      const rows = await db
        .selectFrom('memories')
        .select(['memories.seq', 'memories.project_name', 'memories.priority', 'memories.recency_ms'])
        .where(
          'memories.seq',
          'in',
          near.map((row) => row.seq),
        )
        // By key, whatever the statistics (memory-store.ts idsBySeq).
        .where((eb) => search.sameOwner(eb, userId))
        .where((eb) => scopeCondition(eb, query.scope, search))
        .where(filterCondition(userId, query.filter))
        .execute();
      return rows
        .map((row) => {
          const ranked = toRankingRow(row);
          return { ...ranked, similarity: similarity.get(ranked.seq) ?? 0 };
        })
        .sort((a, b) => b.similarity - a.similarity);
    },

    similarities: (userId, model, vector, seqs) =>
      vectors.similarities(db, userId, { model, dimensions: vector.length }, vector, seqs),

    async pending(query) {
      const rows = await sql<PendingRow>`select ${PENDING_COLUMNS}
        from memories m left join memory_embeddings e on e.memory_seq = m.seq
        where m.seq > ${query.afterSeq}
          ${query.userId === undefined ? sql`` : sql`and m.user_id = ${query.userId}`}
          and (${staleCondition(query.space)} ${query.retryFailed ? sql`or e.vector is null` : sql``})
        order by m.seq limit ${query.limit}`.execute(db);
      return rows.rows.map(toPending);
    },

    async pendingByIds(userId, ids, space) {
      if (ids.length === 0) return [];
      const rows = await sql<PendingRow>`select ${PENDING_COLUMNS}
        from memories m left join memory_embeddings e on e.memory_seq = m.seq
        where m.user_id = ${userId} and m.id in (${sql.join(ids)})
          and (${staleCondition(space)} or e.vector is null)
        order by m.seq`.execute(db);
      return rows.rows.map(toPending);
    },

    async save(rows: readonly EmbeddingWrite[]) {
      if (rows.length === 0) return;
      await db.transaction().execute(async (trx) => {
        // A memory deleted while its vector was computed is skipped (its row would break the foreign key).
        const present = new Set(
          (
            await trx
              .selectFrom('memories')
              .select('seq')
              .where(
                'seq',
                'in',
                rows.map((row) => row.seq),
              )
              .execute()
          ).map((row) => readCount(row.seq)),
        );
        for (const row of rows) {
          if (row.vector !== 'keep' || !present.has(row.seq)) continue;
          await trx
            .updateTable('memory_embeddings')
            .set({ source_updated_at: row.sourceUpdatedAt })
            .where('memory_seq', '=', row.seq)
            .where('user_id', '=', row.userId)
            .execute();
        }
        const values = rows
          .filter((row) => present.has(row.seq) && row.vector !== 'keep')
          .map((row) => {
            const vector = row.vector instanceof Float32Array ? vectors.encode(row.vector) : null;
            const unstorable = row.vector instanceof Float32Array && vector === null;
            return {
              memory_seq: row.seq,
              user_id: row.userId,
              model: row.space.model,
              dimensions: row.space.dimensions,
              text_hash: row.textHash,
              source_updated_at: row.sourceUpdatedAt,
              vector,
              error: unstorable ? `this database cannot store the vector (${vectors.method})` : (row.error ?? null),
            };
          });
        if (values.length === 0) return;
        await trx
          .insertInto('memory_embeddings')
          .values(values)
          .onConflict((oc) =>
            oc.column('memory_seq').doUpdateSet((eb) => ({
              user_id: eb.ref('excluded.user_id'),
              model: eb.ref('excluded.model'),
              dimensions: eb.ref('excluded.dimensions'),
              text_hash: eb.ref('excluded.text_hash'),
              source_updated_at: eb.ref('excluded.source_updated_at'),
              vector: eb.ref('excluded.vector'),
              error: eb.ref('excluded.error'),
            })),
          )
          .execute();
      });
    },

    async counts(space, userId): Promise<EmbeddingCounts> {
      const stale = staleCondition(space);
      const row = (
        await sql<Record<keyof EmbeddingCounts, unknown>>`select
          count(*) as memories,
          sum(case when e.memory_seq is null then 1 else 0 end) as missing,
          sum(case when e.memory_seq is not null and ${stale} then 1 else 0 end) as stale,
          sum(case when not ${stale} and e.vector is null then 1 else 0 end) as failed,
          sum(case when not ${stale} and e.vector is not null then 1 else 0 end) as embedded
        from memories m left join memory_embeddings e on e.memory_seq = m.seq
        ${userId === undefined ? sql`` : sql`where m.user_id = ${userId}`}`.execute(db)
      ).rows[0];
      return {
        memories: readCount(row?.memories),
        embedded: readCount(row?.embedded),
        missing: readCount(row?.missing),
        stale: readCount(row?.stale),
        failed: readCount(row?.failed),
      };
    },
  };
}
