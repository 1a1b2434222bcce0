import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import { analyze } from '../domain/memories/analyzer.js';
import { dedupeKey } from '../domain/memories/dedupe.js';
import type { Priority } from '../domain/memories/memory-schemas.js';
import type {
  ContextQuery,
  KeywordCandidate,
  KeywordQuery,
  MemoryAccess,
  MemoryFilter,
  MemoryPatch,
  MemoryRecord,
  MemoryStore,
} from '../domain/memories/memory-store.js';
import type { RankingRow } from '../domain/memories/ranking.js';
import { readCount, readJson, writeJson } from './codec.js';
import { scopeCondition } from './dialects/memory-scope.js';
import type { MemorySearch, SqlDialect } from './dialects/sql-dialect.js';
import type { MemoriesTable, Schema } from './schema.js';

const PRIORITY_RANK: Record<string, number> = { high: 2, medium: 1, low: 0 };
const RANKS = [2, 1, 0];

export const toRecord = (row: Selectable<MemoriesTable>): MemoryRecord & { seq: number } => ({
  seq: readCount(row.seq),
  id: row.id,
  userId: row.user_id,
  text: row.text,
  projectName: row.project_name,
  metadata: readJson<Record<string, unknown>>(row.metadata),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastAccessedAt: row.last_accessed_at,
});

const toRankingRow = (row: {
  seq: unknown;
  project_name: string | null;
  priority: string | null;
  recency_ms: unknown;
  bm25?: unknown;
}): RankingRow => ({
  seq: readCount(row.seq),
  projectName: row.project_name,
  priority: (row.priority as Priority | null) ?? null,
  recencyMs: readCount(row.recency_ms),
  bm25: Number(row.bm25 ?? 0),
});

/** Columns derived from the memory, so filters and ranking use indexes instead of parsing JSON. */
function derived(text: string, projectName: string | null, metadata: Record<string, unknown>) {
  const category = typeof metadata.category === 'string' ? metadata.category : null;
  const priority = typeof metadata.priority === 'string' ? metadata.priority : null;
  const tags = Array.isArray(metadata.tags) ? metadata.tags.filter((t): t is string => typeof t === 'string') : [];
  const tokens = analyze(`${text} ${category ?? ''} ${tags.join(' ')}`);
  return {
    category,
    priority,
    priorityRank: PRIORITY_RANK[priority ?? 'medium'] ?? 1,
    tags,
    searchTerms: ` ${tokens.join(' ')} `,
    tokenCount: tokens.length,
    textKey: dedupeKey(text, projectName),
  };
}

/** Category, priority and tag filters as one condition on `memories`. */
function filterCondition(userId: string, filter: MemoryFilter) {
  return (eb: ExpressionBuilder<Schema, 'memories'>) => {
    const conditions = [];
    if (filter.category !== undefined) conditions.push(eb('memories.category', '=', filter.category));
    if (filter.priority !== undefined) conditions.push(eb('memories.priority', '=', filter.priority));
    for (const tag of filter.tags) {
      conditions.push(
        eb.exists(
          eb
            .selectFrom('memory_tags')
            .select('memory_tags.tag')
            .whereRef('memory_tags.memory_id', '=', 'memories.id')
            .where('memory_tags.user_id', '=', userId)
            .where('memory_tags.tag', '=', tag),
        ),
      );
    }
    return eb.and(conditions);
  };
}

export interface MemoryStoreDeps {
  db: Kysely<Schema>;
  search: MemorySearch;
  /** Whether the database is PostgreSQL (the duplicate check takes an advisory lock). */
  postgres: boolean;
}

async function writeTags(trx: Kysely<Schema>, memory: { id: string; userId: string }, tags: string[]) {
  await trx.deleteFrom('memory_tags').where('memory_id', '=', memory.id).execute();
  if (tags.length > 0) {
    await trx
      .insertInto('memory_tags')
      .values(tags.map((tag) => ({ memory_id: memory.id, user_id: memory.userId, tag })))
      .execute();
  }
}

/** One memory's row, tags and full-text entry, inside the caller's transaction. */
async function insertInto(trx: Kysely<Schema>, search: MemorySearch, memory: MemoryRecord): Promise<void> {
  const d = derived(memory.text, memory.projectName, memory.metadata);
  const { seq } = await trx
    .insertInto('memories')
    .values({
      id: memory.id,
      user_id: memory.userId,
      text: memory.text,
      project_name: memory.projectName,
      category: d.category,
      priority: d.priority,
      priority_rank: d.priorityRank,
      tags_text: d.tags.join(' '),
      metadata: writeJson(memory.metadata),
      created_at: memory.createdAt,
      updated_at: memory.updatedAt,
      last_accessed_at: memory.lastAccessedAt,
      recency_ms: Date.parse(memory.lastAccessedAt ?? memory.createdAt),
      search_terms: d.searchTerms,
      token_count: d.tokenCount,
      text_key: d.textKey,
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  await writeTags(trx, memory, d.tags);
  await search.index(trx, { ...memory, ...d, seq: readCount(seq) });
}

export async function insertMemory({ db, search }: MemoryStoreDeps, memory: MemoryRecord): Promise<void> {
  await db.transaction().execute((trx) => insertInto(trx, search, memory));
}

/**
 * The exact-duplicate check and the insert in one transaction. SQLite runs one transaction at a time on
 * its one connection, so the check holds; PostgreSQL (several instances, many connections) first takes a
 * transaction-scoped advisory lock on the user and key, so a concurrent identical create waits, then sees
 * the committed row. No unique index: rows stored before migration 0009 may already be duplicates.
 */
export async function insertUnlessDuplicate(
  { db, search, postgres }: MemoryStoreDeps,
  memory: MemoryRecord,
): Promise<MemoryRecord | undefined> {
  const key = dedupeKey(memory.text, memory.projectName);
  return db.transaction().execute(async (trx) => {
    if (postgres)
      await sql`select pg_advisory_xact_lock(hashtextextended(${`${memory.userId}:${key}`}, 0))`.execute(trx);
    const existing = await trx
      .selectFrom('memories')
      .selectAll()
      .where('user_id', '=', memory.userId)
      .where('text_key', '=', key)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    if (existing) return toRecord(existing);
    await insertInto(trx, search, memory);
    return undefined;
  });
}

/**
 * Several memories in one transaction: all or none (the batch create). Between items the event loop gets a
 * turn: on SQLite every statement runs synchronously and the awaits in between are microtasks, so a batch of
 * 100 memories of 50,000 characters each (analysis plus full-text inserts) held the loop for ~0.8 s in one
 * piece, the cost of 100 single creates with no other request answered in between. Other queries still wait
 * for the transaction (it holds the connection), but requests that need no database, and the parsing and
 * checks of those that do, go on; each turn costs at most one item's work.
 */
export async function insertMemories(
  { db, search }: MemoryStoreDeps,
  memories: readonly MemoryRecord[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const [index, memory] of memories.entries()) {
      if (index > 0) await new Promise((resolve) => setImmediate(resolve));
      await insertInto(trx, search, memory);
    }
  });
}

export async function findMemory(db: Kysely<Schema>, userId: string, id: string) {
  const row = await db
    .selectFrom('memories')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function updateMemory(
  { db, search }: MemoryStoreDeps,
  userId: string,
  id: string,
  patch: MemoryPatch,
  updatedAt: string,
) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('memories')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return false;
    const next = { ...toRecord(row), ...patch };
    const d = derived(next.text, next.projectName, next.metadata);
    await trx
      .updateTable('memories')
      .set({
        text: next.text,
        project_name: next.projectName,
        category: d.category,
        priority: d.priority,
        priority_rank: d.priorityRank,
        tags_text: d.tags.join(' '),
        search_terms: d.searchTerms,
        token_count: d.tokenCount,
        text_key: d.textKey,
        metadata: writeJson(next.metadata),
        updated_at: updatedAt,
      })
      .where('seq', '=', row.seq)
      .execute();
    if (patch.metadata !== undefined) await writeTags(trx, next, d.tags);
    await search.index(
      trx,
      { ...next, ...d, seq: next.seq },
      { tokenCount: row.token_count, searchTerms: row.search_terms },
    );
    return true;
  });
}

export async function deleteMemory({ db, search }: MemoryStoreDeps, userId: string, id: string) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('memories')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returning(['seq', 'token_count', 'search_terms'])
      .executeTakeFirst();
    if (!row) return false;
    await search.unindex(trx, {
      seq: readCount(row.seq),
      userId,
      tokenCount: row.token_count,
      searchTerms: row.search_terms,
    });
    return true;
  });
}

export async function listMemories(
  { db, search }: MemoryStoreDeps,
  userId: string,
  query: Parameters<MemoryStore['list']>[1],
) {
  let base = db.selectFrom('memories').where('memories.user_id', '=', userId).where(filterCondition(userId, query));
  const tree = query.projectTree;
  if (tree !== undefined) {
    base = base.where((eb) => eb.or([eb('memories.project_name', '=', tree), search.descendantOf(eb, tree)]));
  }
  const [rows, count] = await Promise.all([
    base
      .selectAll('memories')
      .orderBy('memories.updated_at', 'desc')
      .orderBy('memories.seq', 'desc')
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toRecord), total: readCount(count.n) };
}

export async function keywordCandidates(
  { db, search }: MemoryStoreDeps,
  userId: string,
  query: KeywordQuery,
): Promise<KeywordCandidate[]> {
  const rows = await search.keywordCandidates(db, userId, query, filterCondition(userId, query));
  // Written out field by field: object rest and spread per row cost more than the scoring (profiled).
  return rows.map((row) => ({
    seq: readCount(row.seq),
    projectName: row.project_name,
    priority: (row.priority as Priority | null) ?? null,
    recencyMs: readCount(row.recency_ms),
    searchTerms: row.search_terms,
    tokenCount: readCount(row.token_count),
  }));
}

export function countKeywordMatches(
  { db, search }: MemoryStoreDeps,
  userId: string,
  query: Omit<KeywordQuery, 'limit' | 'only'>,
) {
  return search.countKeywordMatches(db, userId, query, filterCondition(userId, query));
}

export async function contextCandidates({ db, search }: MemoryStoreDeps, userId: string, query: ContextQuery) {
  // One group per project (itself, each ancestor, global), one for all descendants, or one for
  // everything without a scope; each split by priority. Within a group only recency differs.
  type Where = (eb: ExpressionBuilder<Schema, 'memories'>) => ReturnType<ExpressionBuilder<Schema, 'memories'>['and']>;
  const scope = query.scope;
  const groups: Where[] = scope
    ? [
        ...[scope.project, ...scope.ancestors].map(
          (p): Where =>
            (eb) =>
              eb.and([eb('memories.project_name', '=', p)]),
        ),
        (eb) => eb.and([eb('memories.project_name', 'is', null)]),
        (eb) => eb.and([search.descendantOf(eb, scope.project)]),
      ]
    : [(eb) => eb.and([])];
  const ranks = query.priority !== undefined ? [PRIORITY_RANK[query.priority] ?? 1] : RANKS;
  const filter = filterCondition(userId, query);
  const selects = groups.flatMap((group) =>
    ranks.map((rank) =>
      db
        .selectFrom(
          db
            .selectFrom('memories')
            .select(['memories.seq', 'memories.project_name', 'memories.priority', 'memories.recency_ms'])
            .where('memories.user_id', '=', userId)
            .where('memories.priority_rank', '=', rank)
            .where(group)
            .where(filter)
            .orderBy('memories.recency_ms', 'desc')
            // Ranking breaks recency ties by the newer row (compareRanked), so must the cut: memories read by
            // one search share their access time, and without this PostgreSQL may keep any of the tied rows.
            .orderBy('memories.seq', 'desc')
            .limit(query.limit)
            .as('g'),
        )
        .selectAll(),
    ),
  );
  const [first, ...rest] = selects;
  if (!first) return [];
  const rows = await rest.reduce((union, next) => union.unionAll(next), first).execute();
  return rows.map(toRankingRow);
}

export async function countContext(
  { db, search }: MemoryStoreDeps,
  userId: string,
  query: Omit<ContextQuery, 'limit'>,
) {
  const row = await db
    .selectFrom('memories')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('memories.user_id', '=', userId)
    .where((eb) => scopeCondition(eb, query.scope, search))
    .where(filterCondition(userId, query))
    .executeTakeFirstOrThrow();
  return readCount(row.n);
}

export async function findMemoriesBySeq({ db, search }: MemoryStoreDeps, userId: string, seqs: number[]) {
  if (seqs.length === 0) return [];
  const rows = await db
    .selectFrom('memories')
    .selectAll()
    .where('seq', 'in', seqs)
    .where((eb) => search.sameOwner(eb, userId))
    .execute();
  return rows.map(toRecord);
}

export async function recordAccess(db: Kysely<Schema>, accesses: readonly MemoryAccess[]) {
  if (accesses.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const access of accesses) {
      await trx
        .updateTable('memories')
        .set({ last_accessed_at: access.at, recency_ms: Date.parse(access.at) })
        .where('user_id', '=', access.userId)
        .where('id', '=', access.id)
        .where((eb) => eb.or([eb('last_accessed_at', 'is', null), eb('last_accessed_at', '<', access.at)]))
        .execute();
    }
  });
}

export function createMemoryStore(db: Kysely<Schema>, dialect: SqlDialect): MemoryStore {
  const deps: MemoryStoreDeps = { db, search: dialect.memorySearch(db), postgres: dialect.migrations === 'postgres' };
  return {
    insert: (memory) => insertMemory(deps, memory),
    insertMany: (memories) => insertMemories(deps, memories),
    insertUnlessDuplicate: (memory) => insertUnlessDuplicate(deps, memory),
    findById: (userId, id) => findMemory(db, userId, id),
    update: (userId, id, patch, updatedAt) => updateMemory(deps, userId, id, patch, updatedAt),
    delete: (userId, id) => deleteMemory(deps, userId, id),
    list: (userId, query) => listMemories(deps, userId, query),
    keywordCandidates: (userId, query) => keywordCandidates(deps, userId, query),
    countKeywordMatches: (userId, query) => countKeywordMatches(deps, userId, query),
    termStatistics: (userId, terms) => deps.search.termStatistics(db, userId, terms),
    termsWithPrefix: (userId, prefix, limit, scan) => deps.search.termsWithPrefix(db, userId, prefix, limit, scan),
    contextCandidates: (userId, query) => contextCandidates(deps, userId, query),
    countContext: (userId, query) => countContext(deps, userId, query),
    findBySeq: (userId, seqs) => findMemoriesBySeq(deps, userId, seqs),
    idsBySeq: async (userId, seqs) =>
      seqs.length === 0
        ? []
        : (
            await db
              .selectFrom('memories')
              .select(['id', 'seq'])
              .where('user_id', '=', userId)
              .where('seq', 'in', [...seqs])
              .execute()
          ).map((row) => ({ id: row.id, seq: readCount(row.seq) })),
    recordAccess: (accesses) => recordAccess(db, accesses),
  };
}
