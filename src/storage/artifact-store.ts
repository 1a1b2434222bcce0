import type { Insertable, Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import type {
  ArtifactChanges,
  ArtifactListFilter,
  ArtifactRecord,
  ArtifactStore,
  ArtifactSummaryRecord,
  ArtifactVersionRecord,
} from '../domain/artifacts/artifact-store.js';
import type { Change } from '../domain/common/audit.js';
import { appendAudit, auditEntry } from './audit-store.js';
import { escapeLike, readCount, readJson, writeJson } from './codec.js';
import { writeOrConflict } from './conflict.js';
import type { SqlDialect } from './dialects/sql-dialect.js';
import type { ArtifactsTable, ArtifactVersionsTable, Schema } from './schema.js';

const toVersionRecord = (
  row: Pick<Selectable<ArtifactVersionsTable>, 'version' | 'size_bytes' | 'sha256' | 'content_type' | 'created_at'>,
): ArtifactVersionRecord => ({
  version: row.version,
  contentType: row.content_type,
  sizeBytes: readCount(row.size_bytes),
  sha256: row.sha256,
  createdAt: row.created_at,
});

/** The row of a kept (previous) version of an artifact. */
export const toVersionRow = (
  userId: string,
  artifactId: string,
  kept: ArtifactVersionRecord & { content: string },
): Insertable<ArtifactVersionsTable> => ({
  artifact_id: artifactId,
  user_id: userId,
  version: kept.version,
  content: kept.content,
  content_type: kept.contentType,
  size_bytes: kept.sizeBytes,
  sha256: kept.sha256,
  created_at: kept.createdAt,
});

/** Every column but `content`: lists never read the (up to 10 MiB) content. */
const SUMMARY_COLUMNS = [
  'id',
  'project',
  'slug',
  'title',
  'description',
  'content_type',
  'labels',
  'metadata',
  'size_bytes',
  'sha256',
  'version',
  'created_at',
  'updated_at',
] as const;

/** Every field but `content` (and the owner and version time), from the summary columns. */
const toSummaryRecord = (
  row: Pick<Selectable<ArtifactsTable>, (typeof SUMMARY_COLUMNS)[number]>,
): ArtifactSummaryRecord => ({
  id: row.id,
  project: row.project,
  slug: row.slug,
  title: row.title,
  description: row.description,
  contentType: row.content_type,
  labels: readJson<string[]>(row.labels),
  metadata: readJson<Record<string, unknown>>(row.metadata),
  sizeBytes: readCount(row.size_bytes),
  sha256: row.sha256,
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toRecord = (row: Selectable<ArtifactsTable>): ArtifactRecord & { seq: number } => ({
  ...toSummaryRecord(row),
  seq: readCount(row.seq),
  userId: row.user_id,
  content: row.content,
  versionCreatedAt: row.version_created_at,
});

export interface ArtifactStoreDeps {
  db: Kysely<Schema>;
  dialect: SqlDialect;
}

async function writeLabels(trx: Kysely<Schema>, artifactId: string, userId: string, labels: string[]) {
  await trx.deleteFrom('artifact_labels').where('artifact_id', '=', artifactId).execute();
  if (labels.length > 0) {
    await trx
      .insertInto('artifact_labels')
      .values(labels.map((label) => ({ artifact_id: artifactId, user_id: userId, label })))
      .execute();
  }
}

export async function insertArtifact(
  { db, dialect }: ArtifactStoreDeps,
  artifact: ArtifactRecord,
  change: Change,
): Promise<void> {
  await writeOrConflict(
    dialect,
    () =>
      db.transaction().execute(async (trx) => {
        const { seq } = await trx
          .insertInto('artifacts')
          .values({
            id: artifact.id,
            user_id: artifact.userId,
            project: artifact.project,
            slug: artifact.slug,
            title: artifact.title,
            description: artifact.description,
            content: artifact.content,
            content_type: artifact.contentType,
            labels: writeJson(artifact.labels),
            metadata: writeJson(artifact.metadata),
            size_bytes: artifact.sizeBytes,
            sha256: artifact.sha256,
            version: artifact.version,
            version_created_at: artifact.versionCreatedAt,
            created_at: artifact.createdAt,
            updated_at: artifact.updatedAt,
          })
          .returning('seq')
          .executeTakeFirstOrThrow();
        await writeLabels(trx, artifact.id, artifact.userId, artifact.labels);
        await dialect.artifactSearch.index(trx, { ...artifact, seq: readCount(seq) });
        await appendAudit(
          trx,
          auditEntry(change, artifact.userId, {
            objectType: 'artifact',
            objectId: artifact.id,
            objectHandle: `${artifact.project}/${artifact.slug}`,
            action: 'created',
            hashBefore: null,
            hashAfter: artifact.sha256,
          }),
        );
      }),
    `Slug '${artifact.slug}' is already in use in this project`,
  );
}

export async function findArtifact(db: Kysely<Schema>, userId: string, project: string, slug: string) {
  const row = await db
    .selectFrom('artifacts')
    .selectAll()
    .where('user_id', '=', userId)
    .where('project', '=', project)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function listArtifacts({ db, dialect }: ArtifactStoreDeps, userId: string, filter: ArtifactListFilter) {
  let query = db.selectFrom('artifacts').where('artifacts.user_id', '=', userId);
  const tree = filter.projectTree;
  if (tree !== undefined) {
    query = query.where((eb) =>
      eb.or([eb('artifacts.project', '=', tree), dialect.descendantOf('artifacts.project', tree)]),
    );
  }
  if (filter.contentType !== undefined) query = query.where('artifacts.content_type', '=', filter.contentType);
  for (const label of filter.labels) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('artifact_labels')
          .select('artifact_labels.label')
          .whereRef('artifact_labels.artifact_id', '=', 'artifacts.id')
          .where('artifact_labels.user_id', '=', userId)
          .where('artifact_labels.label', '=', label),
      ),
    );
  }
  if (filter.words.length > 0) query = query.where(dialect.artifactSearch.matchesAll(userId, filter.words));
  const [rows, count] = await Promise.all([
    query
      .select(SUMMARY_COLUMNS.map((c) => `artifacts.${c}` as const))
      .orderBy('artifacts.updated_at', 'desc')
      .orderBy('artifacts.seq', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map(toSummaryRecord),
    total: readCount(count.n),
  };
}

export async function updateArtifact(
  { db, dialect }: ArtifactStoreDeps,
  userId: string,
  id: string,
  expectedVersion: number,
  changes: ArtifactChanges,
  at: string,
  keepVersions: number,
  change: Change,
) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('artifacts')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return { status: 'not_found' as const };
    const current = toRecord(row);
    if (current.version !== expectedVersion) return { status: 'conflict' as const, version: current.version };
    const contentChanged = changes.content !== undefined;
    const version = contentChanged ? current.version + 1 : current.version;
    // The version guard makes the write conditional even where transactions run concurrently
    // (PostgreSQL): of two writers that read the same version, only one updates a row.
    const result = await trx
      .updateTable('artifacts')
      .set({
        updated_at: at,
        ...(changes.title !== undefined && { title: changes.title }),
        ...(changes.description !== undefined && { description: changes.description }),
        ...(changes.contentType !== undefined && { content_type: changes.contentType }),
        ...(changes.labels !== undefined && { labels: writeJson(changes.labels) }),
        ...(changes.metadata !== undefined && { metadata: writeJson(changes.metadata) }),
        ...(contentChanged && {
          content: changes.content,
          size_bytes: changes.sizeBytes,
          sha256: changes.sha256,
          version,
          version_created_at: at,
        }),
      })
      .where('seq', '=', row.seq)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) {
      const now = await trx.selectFrom('artifacts').select('version').where('seq', '=', row.seq).executeTakeFirst();
      return now ? { status: 'conflict' as const, version: now.version } : { status: 'not_found' as const };
    }
    if (changes.labels !== undefined) await writeLabels(trx, id, userId, changes.labels);
    if (contentChanged && keepVersions > 0) {
      await trx
        .insertInto('artifact_versions')
        .values(toVersionRow(userId, id, { ...current, createdAt: current.versionCreatedAt }))
        .execute();
      await trx
        .deleteFrom('artifact_versions')
        .where('artifact_id', '=', id)
        .where('version', '<=', current.version - keepVersions)
        .execute();
    }
    if (contentChanged || changes.title !== undefined || changes.description !== undefined) {
      const next = { ...current, ...changes };
      await dialect.artifactSearch.index(trx, {
        seq: current.seq,
        userId,
        title: next.title,
        description: next.description,
        content: next.content,
      });
    }
    await appendAudit(
      trx,
      auditEntry(change, userId, {
        objectType: 'artifact',
        objectId: id,
        objectHandle: `${current.project}/${current.slug}`,
        action: 'updated',
        hashBefore: current.sha256,
        hashAfter: contentChanged ? (changes.sha256 ?? null) : current.sha256,
      }),
    );
    return { status: 'updated' as const, version };
  });
}

export async function deleteArtifact({ db, dialect }: ArtifactStoreDeps, userId: string, id: string, change: Change) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('artifacts')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returning(['seq', 'project', 'slug', 'sha256'])
      .executeTakeFirst();
    if (!row) return false;
    await dialect.artifactSearch.unindex(trx, readCount(row.seq));
    await appendAudit(
      trx,
      auditEntry(change, userId, {
        objectType: 'artifact',
        objectId: id,
        objectHandle: `${row.project}/${row.slug}`,
        action: 'deleted',
        hashBefore: row.sha256,
        hashAfter: null,
      }),
    );
    return true;
  });
}

export async function listArtifactVersions(
  db: Kysely<Schema>,
  userId: string,
  artifactId: string,
  offset: number,
  limit: number,
) {
  const base = db.selectFrom('artifact_versions').where('user_id', '=', userId).where('artifact_id', '=', artifactId);
  const [rows, count] = await Promise.all([
    limit > 0
      ? base
          .select(['version', 'size_bytes', 'sha256', 'content_type', 'created_at'])
          .orderBy('version', 'desc')
          .limit(limit)
          .offset(offset)
          .execute()
      : Promise.resolve([]),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map(toVersionRecord),
    total: readCount(count.n),
  };
}

export async function findArtifactVersion(db: Kysely<Schema>, userId: string, artifactId: string, version: number) {
  const row = await db
    .selectFrom('artifact_versions')
    .select(['version', 'content', 'size_bytes', 'sha256', 'content_type', 'created_at'])
    .where('user_id', '=', userId)
    .where('artifact_id', '=', artifactId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row && { ...toVersionRecord(row), content: row.content };
}

export async function artifactSlugsStartingWith(db: Kysely<Schema>, userId: string, project: string, prefix: string) {
  const rows = await db
    .selectFrom('artifacts')
    .select('slug')
    .where('user_id', '=', userId)
    .where('project', '=', project)
    .where(sql<boolean>`slug like ${`${escapeLike(prefix)}%`} escape '\\'`)
    .execute();
  return rows.map((row) => row.slug);
}

export function createArtifactStore(db: Kysely<Schema>, dialect: SqlDialect): ArtifactStore {
  const deps = { db, dialect };
  return {
    insert: (artifact, change) => insertArtifact(deps, artifact, change),
    find: (userId, project, slug) => findArtifact(db, userId, project, slug),
    list: (userId, filter) => listArtifacts(deps, userId, filter),
    update: (userId, id, expectedVersion, changes, at, keepVersions, change) =>
      updateArtifact(deps, userId, id, expectedVersion, changes, at, keepVersions, change),
    delete: (userId, id, change) => deleteArtifact(deps, userId, id, change),
    listVersions: (userId, artifactId, offset, limit) => listArtifactVersions(db, userId, artifactId, offset, limit),
    findVersion: (userId, artifactId, version) => findArtifactVersion(db, userId, artifactId, version),
    slugsStartingWith: (userId, project, prefix) => artifactSlugsStartingWith(db, userId, project, prefix),
  };
}
