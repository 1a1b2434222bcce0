import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { MEMORY_VERSION_PREVIEW_CHARS } from '../contract/limits.js';
import type { MemoryStore, MemoryVersionRecord, MemoryVersionSummaryRecord } from '../domain/memories/memory-store.js';
import { readCount, readJson, writeJson } from './codec.js';
import type { MemoriesTable, Schema } from './schema.js';

/**
 * Memory history (migration 0011): the memory row is the current version, `memory_versions` keeps the
 * previous ones. A write keeps at most one row here (the state it replaces) and prunes at most
 * PRUNE_PER_WRITE of the oldest beyond the retention, so lowering the retention is caught up over later
 * writes instead of in one long statement on a write path.
 */
const PRUNE_PER_WRITE = 16;

/** When a row's current version was written (rows from before 0011 have none: their updated_at). */
export const versionCreatedAt = (row: Pick<Selectable<MemoriesTable>, 'version_created_at' | 'updated_at'>) =>
  row.version_created_at ?? row.updated_at;

/**
 * Inside the update's transaction, after the memory row was read: keeps `row` (the state being replaced) as
 * version `row.version`, then prunes versions beyond `keep`.
 */
export async function keepVersion(trx: Transaction<Schema>, row: Selectable<MemoriesTable>, keep: number) {
  if (keep > 0) {
    await trx
      .insertInto('memory_versions')
      .values({
        memory_id: row.id,
        user_id: row.user_id,
        version: row.version,
        text: row.text,
        project_name: row.project_name,
        metadata: writeJson(readJson(row.metadata)),
        created_at: versionCreatedAt(row),
      })
      .execute();
  }
  // After this write the kept versions are 1..row.version at most; keep the newest `keep` of them.
  const cutoff = row.version - keep;
  if (cutoff < 1) return;
  await trx
    .deleteFrom('memory_versions')
    .where('memory_id', '=', row.id)
    .where('user_id', '=', row.user_id)
    .where('version', 'in', (eb) =>
      eb
        .selectFrom('memory_versions')
        .select('version')
        .where('memory_id', '=', row.id)
        .where('user_id', '=', row.user_id)
        .where('version', '<=', cutoff)
        .orderBy('version')
        .limit(PRUNE_PER_WRITE),
    )
    .execute();
}

/** A kept version as its row. */
export const keptVersionRow = (userId: string, memoryId: string, v: MemoryVersionRecord) => ({
  memory_id: memoryId,
  user_id: userId,
  version: v.version,
  text: v.text,
  project_name: v.projectName,
  metadata: writeJson(v.metadata),
  created_at: v.createdAt,
});

/** A version row (kept, or the memory row's current columns) as a record. */
export const toVersionRecord = (r: {
  version: number;
  text: string;
  project_name: string | null;
  metadata: unknown;
  created_at: string;
}): MemoryVersionRecord => ({
  version: r.version,
  text: r.text,
  projectName: r.project_name,
  metadata: readJson<Record<string, unknown>>(r.metadata),
  createdAt: r.created_at,
});

/** The text's start and length, computed by the database so a list never reads whole texts. */
const textPreview = () =>
  sql<string>`substr(${sql.ref('text')}, 1, ${sql.lit(MEMORY_VERSION_PREVIEW_CHARS)})`.as('text_preview');
const textLength = () => sql<number | string>`length(${sql.ref('text')})`.as('text_length');

const toSummary = (row: {
  version: number;
  project_name: string | null;
  created_at: string;
  text_preview: string;
  text_length: number | string;
}): MemoryVersionSummaryRecord => ({
  version: row.version,
  projectName: row.project_name,
  createdAt: row.created_at,
  textPreview: row.text_preview,
  textLength: readCount(row.text_length),
});

export async function listMemoryVersions(
  db: Kysely<Schema>,
  userId: string,
  id: string,
  { offset, limit }: { offset: number; limit: number },
): ReturnType<MemoryStore['versions']> {
  const kept = db.selectFrom('memory_versions').where('user_id', '=', userId).where('memory_id', '=', id);
  // Three independent reads, whatever the page size: the current version, the page, the count.
  const [current, rows, count] = await Promise.all([
    db
      .selectFrom('memories')
      .select(['version', 'project_name', 'version_created_at', 'updated_at', textPreview(), textLength()])
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst(),
    limit > 0
      ? kept
          .select(['version', 'project_name', 'created_at', textPreview(), textLength()])
          .orderBy('version', 'desc')
          .limit(limit)
          .offset(offset)
          .execute()
      : Promise.resolve([]),
    kept.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  if (!current) return undefined;
  return {
    current: toSummary({ ...current, created_at: versionCreatedAt(current) }),
    kept: rows.map(toSummary),
    total: readCount(count.n),
  };
}

export async function findMemoryVersion(
  db: Kysely<Schema>,
  userId: string,
  id: string,
  version: number,
): ReturnType<MemoryStore['findVersion']> {
  const row = await db
    .selectFrom('memories')
    .select(['version', 'text', 'project_name', 'metadata', 'version_created_at', 'updated_at'])
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const snapshot = toVersionRecord;
  if (row.version === version) {
    return { currentVersion: row.version, found: snapshot({ ...row, created_at: versionCreatedAt(row) }) };
  }
  const kept = await db
    .selectFrom('memory_versions')
    .select(['version', 'text', 'project_name', 'metadata', 'created_at'])
    .where('user_id', '=', userId)
    .where('memory_id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst();
  return { currentVersion: row.version, found: kept && snapshot(kept) };
}
