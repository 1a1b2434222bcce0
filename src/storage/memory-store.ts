import { type Compilable, type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import { MEMORY_VERSION_RETENTION_DEFAULT } from '../contract/limits.js';
import { type AuditEntry, type Change, contentHash } from '../domain/common/audit.js';
import { NotFoundError, ValidationError } from '../domain/common/errors.js';
import { sameJson } from '../domain/common/json.js';
import { analyzeMemory } from '../domain/memories/analyzer.js';
import { dedupeKey } from '../domain/memories/dedupe.js';
import type { Priority } from '../domain/memories/memory-schemas.js';
import { MAX_TAGS } from '../domain/memories/memory-schemas.js';
import type {
  ContextQuery,
  KeywordCandidate,
  KeywordQuery,
  MemoryAccess,
  MemoryFilter,
  MemoryHistoryWrite,
  MemoryPatch,
  MemoryRecord,
  MemoryStore,
  MemoryUpdateOutcome,
  NearDuplicateCandidate,
  NearDuplicateQuery,
  SupersedeLinks,
} from '../domain/memories/memory-store.js';
import { visibleUntil } from '../domain/memories/memory-store.js';
import type { RankingRow } from '../domain/memories/ranking.js';
import { appendAudit, auditEntry, auditWrites } from './audit-store.js';
import { readBool, readCount, readJson, writeBool, writeJson } from './codec.js';
import { PRIORITY_RANK } from './dialects/memory-context.js';
import { scopeCondition } from './dialects/memory-scope.js';
import { distinctTokens } from './dialects/memory-stats.js';
import type { MemorySearch, SqlDialect } from './dialects/sql-dialect.js';
import { inlineParameters } from './inline-literals.js';
import { findMemoryVersion, keepVersion, listMemoryVersions, versionCreatedAt } from './memory-versions.js';
import { type NewMemory, type OneStatementCreate, oneStatementCreate } from './one-statement-create.js';
import { precompile, precompiledInsert, precompiledVariants, precompileStatement } from './precompiled.js';
import type { MemoriesTable, Schema } from './schema.js';

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
  expiresAt: row.expires_at,
  pinned: readBool(row.pinned),
  supersededBy: row.superseded_by,
  visibleUntil: row.visible_until,
});

export const toRankingRow = (row: {
  seq: unknown;
  project_name: string | null;
  priority: string | null;
  recency_ms: unknown;
  pinned?: unknown;
  bm25?: unknown;
}): RankingRow => ({
  seq: readCount(row.seq),
  projectName: row.project_name,
  priority: (row.priority as Priority | null) ?? null,
  recencyMs: readCount(row.recency_ms),
  bm25: Number(row.bm25 ?? 0),
  pinned: readBool(row.pinned),
});

/** Columns derived from the memory, so filters and ranking use indexes instead of parsing JSON. */
function derived(text: string, projectName: string | null, metadata: Record<string, unknown>) {
  const category = typeof metadata.category === 'string' ? metadata.category : null;
  const priority = typeof metadata.priority === 'string' ? metadata.priority : null;
  const tags = Array.isArray(metadata.tags) ? metadata.tags.filter((t): t is string => typeof t === 'string') : [];
  const tokens = analyzeMemory(text, category, tags);
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
export function filterCondition(userId: string, filter: MemoryFilter) {
  return (eb: ExpressionBuilder<Schema, 'memories'>) => {
    const conditions = [];
    if (filter.category !== undefined) conditions.push(eb('memories.category', '=', filter.category));
    if (filter.priority !== undefined) conditions.push(eb('memories.priority', '=', filter.priority));
    if (filter.pinned !== undefined) conditions.push(eb('memories.pinned', '=', writeBool(filter.pinned)));
    // Visibility (memory lifecycle): NULL = visible forever; the hidden set is a range of (user_id, visible_until).
    if (filter.visibleAt !== undefined) {
      const at = filter.visibleAt;
      conditions.push(eb.or([eb('memories.visible_until', 'is', null), eb('memories.visible_until', '>', at)]));
    }
    if (filter.hiddenAt !== undefined) conditions.push(eb('memories.visible_until', '<=', filter.hiddenAt));
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
  /** The writes of a create, compiled once for `db` (memoryWrites). */
  writes: MemoryWrites;
  /** PostgreSQL: a new memory's writes as one statement (one-statement-create.ts); undefined on SQLite. */
  oneStatement: OneStatementCreate | undefined;
}

/** The columns of a new memory's row (memoryRow), in the order its precompiled insert takes them. */
const MEMORY_ROW_COLUMNS = [
  'id',
  'user_id',
  'text',
  'project_name',
  'category',
  'priority',
  'priority_rank',
  'tags_text',
  'metadata',
  'created_at',
  'updated_at',
  'last_accessed_at',
  'recency_ms',
  'search_terms',
  'token_count',
  'text_key',
  'expires_at',
  'pinned',
  'superseded_by',
  'visible_until',
] as const;

/**
 * Tag lists up to this long are inserted by a precompiled statement (one per length, compiled when first
 * needed): every list the API accepts. A longer one (none should reach here) is built per call.
 */
const PRECOMPILED_TAG_LISTS = MAX_TAGS;
/** Id lists up to this long (idsBySeq) are read by a statement compiled once per length. */
const PRECOMPILED_ID_LISTS = 20;

/**
 * The statements every memory create runs, built and compiled by Kysely once per database instead of once
 * per create (issue 15: building and compiling was ~12% of a create's CPU; precompiled.ts).
 */
export function memoryWrites(db: Kysely<Schema>) {
  const tags = (count: number) =>
    precompileStatement(
      (memoryId: string, userId: string, ...list: string[]) =>
        db
          .insertInto('memory_tags')
          .values(list.slice(0, count).map((tag) => ({ memory_id: memoryId, user_id: userId, tag }))),
      count + 2,
    );
  return {
    insertRow: precompiledInsert(db, 'memories', MEMORY_ROW_COLUMNS, 'seq'),
    insertTags: precompiledVariants(tags, PRECOMPILED_TAG_LISTS),
    audit: auditWrites(db),
    /**
     * The exact-duplicate check of a create that supersedes nothing (insertUnlessDuplicate). Its `seq`
     * only: a prepared `select *` would fail inside the create's transaction once a rolling upgrade adds a
     * column to `memories` (PostgreSQL, database.ts), and a miss, the usual answer, needs no row.
     */
    identical: precompileStatement(
      (userId: string, key: string, at: string) => identicalMemory(db, userId, key, at).select('seq').limit(1),
      3,
    ),
  };
}

/** The visible, unsuperseded memories of the user with this duplicate key, the first stored first. */
const identicalMemory = (db: Kysely<Schema>, userId: string, key: string, at: string) =>
  db
    .selectFrom('memories')
    .where('user_id', '=', userId)
    .where('text_key', '=', key)
    .where('superseded_by', 'is', null)
    .where((eb) => eb.or([eb('visible_until', 'is', null), eb('visible_until', '>', at)]))
    .orderBy('seq');

export type MemoryWrites = ReturnType<typeof memoryWrites>;

async function writeTags(trx: Kysely<Schema>, memory: { id: string; userId: string }, tags: string[]) {
  await trx.deleteFrom('memory_tags').where('memory_id', '=', memory.id).execute();
  if (tags.length > 0) {
    await trx
      .insertInto('memory_tags')
      .values(tags.map((tag) => ({ memory_id: memory.id, user_id: memory.userId, tag })))
      .execute();
  }
}

/** The rows of a memory's values, one per key, for the columns of `MEMORY_ROW_COLUMNS`. */
function memoryRow(memory: MemoryRecord, d: ReturnType<typeof derived>) {
  return {
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
    expires_at: memory.expiresAt ?? null,
    pinned: writeBool(memory.pinned ?? false),
    superseded_by: memory.supersededBy ?? null,
    visible_until: visibleUntil(memory),
  } satisfies Record<(typeof MEMORY_ROW_COLUMNS)[number], unknown>;
}

/**
 * One memory's row, tags and full-text entry, inside the caller's transaction. `version` is its current
 * version's number (1, the default, for a new memory; an import brings its own).
 */
async function insertInto(
  trx: Kysely<Schema>,
  { search, writes, oneStatement }: Pick<MemoryStoreDeps, 'search' | 'writes' | 'oneStatement'>,
  memory: MemoryRecord,
  version?: number,
  d = derived(memory.text, memory.projectName, memory.metadata),
  audit?: AuditEntry,
): Promise<void> {
  const row = memoryRow(memory, d);
  if (oneStatement !== undefined && inOneStatement(memory, version)) {
    await oneStatement(trx, [{ row, index: newMemoryIndex(d) }], audit);
    return;
  }
  const [inserted] =
    version === undefined
      ? await writes.insertRow(trx, row)
      : await trx
          .insertInto('memories')
          .values({ ...row, version })
          .returning('seq')
          .execute();
  if (!inserted) throw new Error('insert into memories returned no row');
  // A new memory has no tags yet: nothing to delete first (writeTags is for updates).
  if (d.tags.length > 0) await writes.insertTags(d.tags.length)(trx, memory.id, memory.userId, ...d.tags);
  const seq = readCount(inserted.seq);
  await search.index(trx, { ...memory, ...d, seq });
  // Before anything else changes the user's memories in this transaction (the stamp brackets this row).
  await search.inserted?.(trx, {
    seq,
    id: memory.id,
    user_id: memory.userId,
    project_name: memory.projectName,
    visible_until: row.visible_until,
    search_terms: d.searchTerms,
  });
  // A link carried in (bundle import): its target's creation time decides the visibility.
  if (memory.supersededBy) await refreshVisibility(trx, memory.userId, [memory.id]);
  if (audit !== undefined) await appendAudit(trx, audit, writes.audit);
}

/**
 * Whether a new memory's writes can be one statement (one-statement-create.ts, where the dialect has it): not
 * a copy at a given version, and not one carrying a supersede link in (its visibility is refreshed after).
 */
const inOneStatement = (memory: MemoryRecord, version?: number) => version === undefined && !memory.supersededBy;

/** What a new memory's index writes need besides its row (one-statement-create.ts). */
const newMemoryIndex = (d: ReturnType<typeof derived>) => ({ tags: d.tags, terms: distinctTokens(d.searchTerms) });

/** The audit entry of a memory's creation. */
const created = (change: Change, memory: MemoryRecord) =>
  auditEntry(change, memory.userId, {
    objectType: 'memory',
    objectId: memory.id,
    objectHandle: null,
    action: 'created',
    hashBefore: null,
    hashAfter: contentHash(memory.text),
  });

/**
 * Recomputes `visible_until` of the user's memories `ids` from their expiry, pin and link (the superseding
 * memory's creation time; a link to a memory that is not the user's counts as none). Bounded by the caller
 * (at most MAX_SUPERSEDES + 1 ids).
 */
async function refreshVisibility(trx: Kysely<Schema>, userId: string, ids: readonly string[]) {
  if (ids.length === 0) return;
  const rows = await trx
    .selectFrom('memories as m')
    .leftJoin('memories as s', (join) => join.onRef('s.id', '=', 'm.superseded_by').on('s.user_id', '=', userId))
    .select(['m.seq', 'm.expires_at', 'm.pinned', 'm.visible_until', 's.created_at as superseded_at'])
    .where('m.user_id', '=', userId)
    .where('m.id', 'in', [...ids])
    .execute();
  for (const row of rows) {
    const next = visibleUntil({
      pinned: readBool(row.pinned),
      expiresAt: row.expires_at,
      supersededAt: row.superseded_at,
    });
    if (next !== row.visible_until) {
      await trx.updateTable('memories').set({ visible_until: next }).where('seq', '=', row.seq).execute();
    }
  }
}

/**
 * The supersede links of `newer` (memory lifecycle, docs/api.md): every named memory must be the user's
 * (else NotFoundError naming the first missing id, before anything is written: the caller's transaction rolls
 * back). `replace` (update): memories `newer` superseded and no longer named are released. A superseded memory
 * cannot take new links (that is how cycles would form); a memory cannot supersede itself (the service
 * refuses that first).
 */
async function linkSupersedes(
  trx: Kysely<Schema>,
  userId: string,
  newer: { id: string; supersededBy: string | null },
  supersedes: readonly string[],
  replace: boolean,
) {
  const named = [...new Set(supersedes)].filter((id) => id !== newer.id);
  if (named.length > 0) {
    await checkOwned(trx, userId, named);
    if (newer.supersededBy !== null) {
      throw new ValidationError({
        supersedes: 'This memory is itself superseded: it cannot supersede others (remove its own link first)',
      });
    }
  }
  const released = replace
    ? (
        await trx
          .selectFrom('memories')
          .select('id')
          .where('user_id', '=', userId)
          .where('superseded_by', '=', newer.id)
          .$if(named.length > 0, (qb) => qb.where('id', 'not in', named))
          .execute()
      ).map((row) => row.id)
    : [];
  if (released.length > 0) {
    await trx
      .updateTable('memories')
      .set({ superseded_by: null })
      .where('user_id', '=', userId)
      .where('id', 'in', released)
      .execute();
  }
  if (named.length > 0) {
    await trx
      .updateTable('memories')
      .set({ superseded_by: newer.id })
      .where('user_id', '=', userId)
      .where('id', 'in', named)
      .execute();
  }
  await refreshVisibility(trx, userId, [...released, ...named]);
}

/** `version`: the memory's current version number when it arrives with history (bundle import); else 1. */
export async function insertMemory(
  deps: MemoryStoreDeps,
  memory: MemoryRecord,
  change: Change,
  links: SupersedeLinks = {},
  version?: number,
): Promise<void> {
  if (!links.supersedes?.length && deps.oneStatement !== undefined && inOneStatement(memory, version)) {
    // One statement (PostgreSQL) is a transaction of its own.
    await insertInto(deps.db, deps, memory, version, undefined, created(change, memory));
    return;
  }
  await deps.db.transaction().execute(async (trx) => {
    await insertInto(trx, deps, memory, version, undefined, created(change, memory));
    // A supersedes naming another user's memory fails in linkSupersedes, and the transaction rolls back.
    if (links.supersedes?.length) {
      await linkSupersedes(trx, memory.userId, { id: memory.id, supersededBy: null }, links.supersedes, false);
    }
  });
}

/** Every id is one of the user's memories (checked before any write), else NotFoundError naming it. */
async function checkOwned(trx: Kysely<Schema>, userId: string, ids: readonly string[]) {
  const named = [...new Set(ids)];
  const found = new Set(
    (
      await trx.selectFrom('memories').select('id').where('user_id', '=', userId).where('id', 'in', named).execute()
    ).map((row) => row.id),
  );
  const missing = named.find((id) => !found.has(id));
  if (missing !== undefined) throw new NotFoundError(`Memory ${missing}`);
}

type InsertCheckedResult = { existing: MemoryRecord | undefined; candidates: NearDuplicateCandidate[] };

/** What a checked create's two checks found: the near-duplicate candidates, the identical memory's seq. */
interface DuplicateChecks {
  candidates: NearDuplicateCandidate[];
  identical: number | undefined;
}

/**
 * The duplicate checks and the insert in one transaction: the near-duplicate candidates of `near` (read
 * before the insert, so never the new memory itself), then the exact-duplicate check, then the insert. On
 * SQLite the transaction is a member of a group (durable-commit.ts), so the candidates are those of the
 * committed rows and of the group's earlier members, which commit or fail with this one; reading them
 * outside the transaction would wait for the open group to commit first and cut groups short. SQLite runs
 * one transaction at a time on its one connection, so the exact check holds; PostgreSQL (several
 * instances, many connections) first takes a transaction-scoped advisory lock on the user and key, so a
 * concurrent identical create waits, then sees the committed row (checksScript). No unique index: rows
 * stored before migration 0009 may already be duplicates.
 */
export async function insertChecked(
  deps: MemoryStoreDeps,
  memory: MemoryRecord,
  change: Change,
  links: SupersedeLinks = {},
  near?: NearDuplicateQuery,
): Promise<InsertCheckedResult> {
  const d = derived(memory.text, memory.projectName, memory.metadata);
  const key = d.textKey;
  const supersedes = links.supersedes ?? [];
  const at = memory.createdAt;
  // Only a visible, unsuperseded memory is a duplicate (an expired or replaced one does not stand for the
  // fact any more), and not one this create supersedes.
  const identicalQuery = (db: Kysely<Schema>) =>
    identicalMemory(db, memory.userId, key, at)
      .select('seq')
      .$if(supersedes.length > 0, (qb) => qb.where('id', 'not in', [...supersedes]))
      .limit(1);
  const checks = async (trx: Kysely<Schema>): Promise<DuplicateChecks> => {
    const candidates = near === undefined ? [] : await readNearDuplicateCandidates(deps, trx, memory.userId, near);
    const [identical] =
      supersedes.length === 0
        ? await deps.writes.identical(trx, memory.userId, key, at)
        : await identicalQuery(trx).execute();
    return { candidates, identical: identical && readCount(identical.seq) };
  };
  const write = async (trx: Kysely<Schema>, { candidates, identical }: DuplicateChecks) => {
    if (identical !== undefined) {
      const existing = await trx
        .selectFrom('memories')
        .selectAll()
        .where('seq', '=', identical)
        .executeTakeFirstOrThrow();
      // The identical memory stands for the new one: it takes the links this create asked for.
      if (supersedes.length > 0) {
        await linkSupersedes(trx, memory.userId, { id: existing.id, supersededBy: null }, supersedes, false);
      }
      return { existing: toRecord(existing), candidates };
    }
    await insertInto(trx, deps, memory, undefined, d, created(change, memory));
    if (supersedes.length > 0) {
      await linkSupersedes(trx, memory.userId, { id: memory.id, supersededBy: null }, supersedes, false);
    }
    return { existing: undefined, candidates };
  };
  if (!deps.postgres) return deps.db.transaction().execute(async (trx) => write(trx, await checks(trx)));
  const lockKey = `${memory.userId}:${key}`;
  const script = checksScript(deps, memory.userId, lockKey, identicalQuery(deps.db), near);
  if (script === undefined) {
    return deps.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
      return write(trx, await checks(trx));
    });
  }
  return deps.db.connection().execute(async (connection) => {
    try {
      const { rows } = await sql.raw<CheckRow>(script).execute(connection);
      const result = await write(connection, checksOf(rows));
      await sql.raw('commit').execute(connection);
      return result;
    } catch (error) {
      // Also when BEGIN went through and what followed did not: the connection goes back to the pool idle.
      await sql
        .raw('rollback')
        .execute(connection)
        .catch(() => undefined);
      throw error;
    }
  });
}

/** A row of a checked create's first message on PostgreSQL: the identical memory or a candidate. */
interface CheckRow {
  source: 'exact' | 'near';
  seq: number | string;
  id: string | null;
  project_name: string | null;
  search_terms: string | null;
}

/**
 * PostgreSQL: a checked create's first message — BEGIN, the advisory lock on the user and key, and both
 * checks as one statement after it (so they see every create that held the lock before) — written for the
 * simple query protocol, which runs several statements sent together but takes no parameters
 * (inline-literals.ts). Then come the writes and COMMIT: three round trips instead of six, each costing
 * about what its query does (docs/performance.md, session 16). Undefined when a value cannot be written as a
 * literal: the same steps then go one statement at a time.
 */
function checksScript(
  deps: MemoryStoreDeps,
  userId: string,
  lockKey: string,
  identical: Compilable<unknown>,
  near: NearDuplicateQuery | undefined,
): string | undefined {
  const candidatesQuery = deps.search.keywordCandidatesQuery;
  if (near !== undefined && candidatesQuery === undefined) return undefined;
  const keywordQuery = near && nearKeywordQuery(near);
  const candidates =
    keywordQuery && candidatesQuery?.(deps.db, userId, keywordQuery, filterCondition(userId, keywordQuery));
  const both = sql`select 'exact' as source, e.seq, null as id, null as project_name, null as search_terms
    from (${identical}) as e${
      candidates === undefined
        ? sql``
        : sql` union all select 'near', n.seq, n.id, n.project_name, n.search_terms from (${candidates}) as n`
    }`.compile(deps.db);
  const checks = inlineParameters(both.sql, both.parameters);
  const lock = inlineParameters('select pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
  return checks === undefined || lock === undefined ? undefined : `begin; ${lock}; ${checks}`;
}

/** The checks' answers from the rows of checksScript, the candidates newest first as the stream gives them. */
function checksOf(rows: readonly CheckRow[]): DuplicateChecks {
  const exact = rows.find((row) => row.source === 'exact');
  const candidates = rows
    .filter((row) => row.source === 'near')
    .map(nearCandidateOf)
    .sort((a, b) => b.seq - a.seq);
  return { candidates, identical: exact && readCount(exact.seq) };
}

/**
 * Memories written by one statement at most (PostgreSQL's batch create, insertMemories), and the text a
 * statement takes before the next one starts (as much as one memory at the default body limit).
 */
const ONE_STATEMENT_BATCH = 100;
const ONE_STATEMENT_CHARS = 1024 * 1024;

/**
 * Several memories in one transaction: all or none (the batch create). Between items the event loop gets a
 * turn: on SQLite every statement runs synchronously and the awaits in between are microtasks, so a batch of
 * 100 memories of 50,000 characters each (analysis plus full-text inserts) held the loop for ~0.8 s in one
 * piece, the cost of 100 single creates with no other request answered in between. Other queries still wait
 * for the transaction (it holds the connection), but requests that need no database, and the parsing and
 * checks of those that do, go on; each turn costs at most one item's work. On PostgreSQL the items are
 * written by one statement (one-statement-create.ts) once analysed, per 100 memories or 1 Mi characters of
 * text: one round trip instead of three each.
 */
export async function insertMemories(
  deps: MemoryStoreDeps,
  memories: readonly MemoryRecord[],
  change: Change,
): Promise<void> {
  const { oneStatement } = deps;
  await deps.db.transaction().execute(async (trx) => {
    if (oneStatement !== undefined && memories.every((memory) => inOneStatement(memory))) {
      // PostgreSQL: the items in one statement per ONE_STATEMENT_BATCH (a batch create holds at most that),
      // each item analysed in a turn of its own.
      let chunk: NewMemory[] = [];
      let chars = 0;
      for (const [index, memory] of memories.entries()) {
        if (index > 0) await new Promise((resolve) => setImmediate(resolve));
        const d = derived(memory.text, memory.projectName, memory.metadata);
        chunk.push({ row: memoryRow(memory, d), index: newMemoryIndex(d) });
        chars += memory.text.length;
        const next = memories[index + 1];
        // One user's memories per statement (a batch create's always are), and a bounded statement: the
        // client encodes its parameters in one piece of the event loop's time.
        if (
          chunk.length === ONE_STATEMENT_BATCH ||
          chars >= ONE_STATEMENT_CHARS ||
          next === undefined ||
          next.userId !== memory.userId
        ) {
          await oneStatement(trx, chunk);
          chunk = [];
          chars = 0;
        }
      }
    } else {
      for (const [index, memory] of memories.entries()) {
        if (index > 0) await new Promise((resolve) => setImmediate(resolve));
        await insertInto(trx, deps, memory);
      }
    }
    // One multi-row insert for the whole batch.
    await appendAudit(
      trx,
      memories.map((memory) => created(change, memory)),
    );
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
  { db, search, postgres }: MemoryStoreDeps,
  userId: string,
  id: string,
  patch: MemoryPatch,
  updatedAt: string,
  change: Change,
  links: SupersedeLinks = {},
  history: MemoryHistoryWrite = { keep: MEMORY_VERSION_RETENTION_DEFAULT },
): Promise<MemoryUpdateOutcome> {
  return db.transaction().execute(async (trx) => {
    const read = trx.selectFrom('memories').selectAll().where('user_id', '=', userId).where('id', '=', id);
    // PostgreSQL: lock the row, so concurrent updates of one memory take their versions one after the other
    // (SQLite runs one write transaction at a time anyway).
    const row = await (postgres ? read.forUpdate() : read).executeTakeFirst();
    if (!row) return false;
    // Links first: a named memory that is not the user's fails the update before anything is written.
    if (links.supersedes !== undefined) {
      await linkSupersedes(trx, userId, { id, supersededBy: row.superseded_by }, links.supersedes, true);
    }
    const current = toRecord(row);
    const next = { ...current, ...patch };
    const changed =
      history.force === true ||
      next.text !== current.text ||
      next.projectName !== current.projectName ||
      !sameJson(next.metadata, current.metadata);
    if (changed) await keepVersion(trx, row, history.keep);
    const version = changed ? row.version + 1 : row.version;
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
        expires_at: next.expiresAt ?? null,
        pinned: writeBool(next.pinned ?? false),
        version,
        version_created_at: changed ? updatedAt : versionCreatedAt(row),
      })
      .where('seq', '=', row.seq)
      .execute();
    if (patch.expiresAt !== undefined || patch.pinned !== undefined) await refreshVisibility(trx, userId, [id]);
    if (patch.metadata !== undefined) await writeTags(trx, next, d.tags);
    await search.index(
      trx,
      { ...next, ...d, seq: next.seq },
      {
        tokenCount: row.token_count,
        searchTerms: row.search_terms,
        projectName: row.project_name,
        priority: row.priority,
      },
    );
    await appendAudit(
      trx,
      auditEntry(change, userId, {
        objectType: 'memory',
        objectId: id,
        objectHandle: null,
        action: 'updated',
        hashBefore: contentHash(row.text),
        hashAfter: contentHash(next.text),
      }),
    );
    return { version };
  });
}

export async function deleteMemory({ db, search }: MemoryStoreDeps, userId: string, id: string, change: Change) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('memories')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returning(['seq', 'token_count', 'search_terms', 'text'])
      .executeTakeFirst();
    if (!row) return false;
    // Removing the newer memory removes its links: the memories it superseded come back.
    await linkSupersedes(trx, userId, { id, supersededBy: null }, [], true);
    await search.unindex(trx, {
      seq: readCount(row.seq),
      userId,
      tokenCount: row.token_count,
      searchTerms: row.search_terms,
    });
    await appendAudit(
      trx,
      auditEntry(change, userId, {
        objectType: 'memory',
        objectId: id,
        objectHandle: null,
        action: 'deleted',
        hashBefore: contentHash(row.text),
        hashAfter: null,
      }),
    );
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
    pinned: readBool(row.pinned),
    searchTerms: row.search_terms,
    tokenCount: readCount(row.token_count),
  }));
}

/** The keyword search a near-duplicate check's candidates come from: its project only, most recent first. */
function nearKeywordQuery({ terms, project, visibleAt, limit }: NearDuplicateQuery): KeywordQuery {
  return {
    terms: [...terms],
    tags: [],
    visibleAt,
    ...(project !== null && { scope: { project, ancestors: [] }, only: 'project' as const }),
    limit,
  };
}

/**
 * The near-duplicate check's candidates: from the dialect's memory of recent memories when it can answer
 * exactly (SQLite: dialects/sqlite/recent-memories.ts), else from the keyword index.
 */
async function readNearDuplicateCandidates(
  deps: MemoryStoreDeps,
  /** The database, or the transaction of the create being checked. */
  executor: Kysely<Schema>,
  userId: string,
  query: NearDuplicateQuery,
): Promise<NearDuplicateCandidate[]> {
  const recent = await deps.search.recentCandidates?.(executor, userId, query);
  if (recent !== undefined) return recent;
  const keywordQuery = nearKeywordQuery(query);
  const rows = await deps.search.keywordCandidates(
    executor,
    userId,
    keywordQuery,
    filterCondition(userId, keywordQuery),
  );
  return rows.map(nearCandidateOf);
}

/** A keyword row as a near-duplicate candidate, with its id when the dialect's row carries one. */
const nearCandidateOf = (row: {
  seq: unknown;
  id?: string | null;
  project_name: string | null;
  search_terms: string | null;
}): NearDuplicateCandidate => ({
  seq: readCount(row.seq),
  projectName: row.project_name,
  searchTerms: row.search_terms ?? '',
  ...(typeof row.id === 'string' && { id: row.id }),
});

export function countKeywordMatches(
  { db, search }: MemoryStoreDeps,
  userId: string,
  query: Omit<KeywordQuery, 'limit' | 'only'>,
) {
  return search.countKeywordMatches(db, userId, query, filterCondition(userId, query));
}

export async function contextCandidates({ db, search }: MemoryStoreDeps, userId: string, query: ContextQuery) {
  const rows = await search.contextCandidates(db, userId, query, filterCondition(userId, query));
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

export function createMemoryStore(
  db: Kysely<Schema>,
  dialect: SqlDialect,
): MemoryStore & {
  /** An import's insert: the memory at its own current version. */
  insertAtVersion(memory: MemoryRecord, change: Change, version: number): Promise<void>;
} {
  const deps: MemoryStoreDeps = {
    db,
    search: dialect.memorySearch(db),
    postgres: dialect.migrations === 'postgres',
    writes: memoryWrites(db),
    oneStatement: undefined,
  };
  deps.oneStatement = oneStatementCreate(db, deps.search, MEMORY_ROW_COLUMNS);
  // The ids of a create's near duplicates (dedupe.ts: at most 5), one statement per count, compiled once.
  const idsOf = precompiledVariants(
    (count: number) =>
      precompile(
        db,
        (userId: string, ...seqs: number[]) =>
          db
            .selectFrom('memories')
            .select(['memories.id', 'memories.seq'])
            .where('memories.seq', 'in', seqs.slice(0, count))
            // Not `user_id = ?`: on SQLite, statistics taken while the table was small (a new database
            // that grew under one long-running process) made that walk the user's index, ~2.5 ms per
            // create at 20k memories instead of five key lookups (docs/performance.md, session 8).
            .where((eb) => deps.search.sameOwner(eb, userId)),
        count + 1,
      ),
    PRECOMPILED_ID_LISTS,
  );
  return {
    insert: (memory, change, links) => insertMemory(deps, memory, change, links),
    insertAtVersion: (memory, change, version) => insertMemory(deps, memory, change, {}, version),
    insertMany: (memories, change) => insertMemories(deps, memories, change),
    insertUnlessDuplicate: async (memory, change, links) => (await insertChecked(deps, memory, change, links)).existing,
    insertChecked: (memory, change, links, near) => insertChecked(deps, memory, change, links, near),
    findById: (userId, id) => findMemory(db, userId, id),
    update: (userId, id, patch, updatedAt, change, links, history) =>
      updateMemory(deps, userId, id, patch, updatedAt, change, links, history),
    versions: (userId, id, page) => listMemoryVersions(db, userId, id, page),
    findVersion: (userId, id, version) => findMemoryVersion(db, userId, id, version),
    delete: (userId, id, change) => deleteMemory(deps, userId, id, change),
    setSupersededBy: (userId, id, supersededBy) =>
      db.transaction().execute(async (trx) => {
        const owned =
          supersededBy !== null && supersededBy !== id
            ? await trx
                .selectFrom('memories')
                .select('id')
                .where('user_id', '=', userId)
                .where('id', '=', supersededBy)
                .executeTakeFirst()
            : undefined;
        await trx
          .updateTable('memories')
          .set({ superseded_by: owned?.id ?? null })
          .where('user_id', '=', userId)
          .where('id', '=', id)
          .execute();
        await refreshVisibility(trx, userId, [id]);
      }),
    list: (userId, query) => listMemories(deps, userId, query),
    keywordCandidates: (userId, query) => keywordCandidates(deps, userId, query),
    countKeywordMatches: (userId, query) => countKeywordMatches(deps, userId, query),
    nearDuplicateCandidates: (userId, query) => readNearDuplicateCandidates(deps, db, userId, query),
    termStatistics: (userId, terms) => deps.search.termStatistics(db, userId, terms),
    termsWithPrefix: (userId, prefix, limit, scan) => deps.search.termsWithPrefix(db, userId, prefix, limit, scan),
    contextCandidates: (userId, query) => contextCandidates(deps, userId, query),
    countContext: (userId, query) => countContext(deps, userId, query),
    findBySeq: (userId, seqs) => findMemoriesBySeq(deps, userId, seqs),
    idsBySeq: async (userId, seqs) =>
      seqs.length === 0
        ? []
        : (await idsOf(seqs.length)(userId, ...seqs)).map((row) => ({ id: row.id, seq: readCount(row.seq) })),
    recordAccess: (accesses) => recordAccess(db, accesses),
  };
}
