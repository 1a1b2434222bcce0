import { type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { type Change, contentHash } from '../domain/common/audit.js';
import type { PromptStatus, PromptVersion } from '../domain/prompts/prompt-schemas.js';
import type {
  PromptListFilter,
  PromptRecord,
  PromptStore,
  PromptSummaryRecord,
  PromptUpdate,
  VersionedFields,
} from '../domain/prompts/prompt-store.js';
import { extractReferencedSlugs, extractVariables } from '../domain/prompts/template.js';
import { canonicalSchema, type VariableSchema } from '../domain/prompts/variables.js';
import { appendAudit, auditEntry } from './audit-store.js';
import { escapeLike, readBool, readCount, readJson, writeBool, writeJson } from './codec.js';
import { writeOrConflict } from './conflict.js';
import type { SqlDialect } from './dialects/sql-dialect.js';
import {
  environmentVersion,
  listEnvironments,
  marketplaceVersions,
  removeEnvironment,
  setEnvironment,
} from './prompt-environment-store.js';
import { hotReads, type PromptHotReads } from './prompt-hot-reads.js';
import type { PromptsTable, PromptVersionsTable, Schema } from './schema.js';

/** The stored schema in its canonical order (jsonb on PostgreSQL does not keep key order). */
const schemaOf = (stored: unknown, content: string): VariableSchema =>
  canonicalSchema(readJson<VariableSchema>(stored), extractVariables(content));

const toSummary = (row: Pick<Selectable<PromptsTable>, (typeof SUMMARY_COLUMNS)[number]>): PromptSummaryRecord => ({
  id: row.id,
  slug: row.slug,
  title: row.title,
  description: row.description,
  status: row.status as PromptStatus,
  availableInMcp: readBool(row.available_in_mcp),
  labels: readJson<string[]>(row.labels),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A summary plus what lists leave out. */
export const toRecord = (row: Selectable<PromptsTable>): PromptRecord => ({
  ...toSummary(row),
  userId: row.user_id,
  content: row.content,
  variableSchema: schemaOf(row.variable_schema, row.content),
  version: row.version,
});

const searchText = (p: Pick<PromptRecord, 'title' | 'description' | 'content'>): string =>
  `${p.title}\n${p.description}\n${p.content}`.toLowerCase();

const SUMMARY_COLUMNS = [
  'id',
  'slug',
  'title',
  'description',
  'status',
  'available_in_mcp',
  'labels',
  'created_at',
  'updated_at',
] as const;

export const toVersion = (row: Selectable<PromptVersionsTable>): PromptVersion => ({
  version: row.version,
  title: row.title,
  description: row.description,
  content: row.content,
  labels: readJson<string[]>(row.labels),
  variable_schema: schemaOf(row.variable_schema, row.content),
  commit_message: row.commit_message,
  created_at: row.created_at,
});

const versionRow = (userId: string, promptId: string, version: number, fields: VersionedFields) => ({
  prompt_id: promptId,
  user_id: userId,
  version,
  title: fields.title,
  description: fields.description,
  content: fields.content,
  labels: writeJson(fields.labels),
  variable_schema: writeJson(fields.variableSchema),
});

export interface PromptStoreDeps {
  db: Kysely<Schema>;
  dialect: SqlDialect;
}

async function replaceLabels(trx: Kysely<Schema>, userId: string, promptId: string, labels: string[]) {
  await trx.deleteFrom('prompt_labels').where('prompt_id', '=', promptId).execute();
  if (labels.length > 0) {
    await trx
      .insertInto('prompt_labels')
      .values(labels.map((label) => ({ prompt_id: promptId, user_id: userId, label })))
      .execute();
  }
}

/** The reference graph's edges out of one prompt, kept in the same transaction as its content. */
async function replaceReferences(trx: Kysely<Schema>, userId: string, promptId: string, content: string) {
  await trx.deleteFrom('prompt_references').where('prompt_id', '=', promptId).execute();
  const targets = extractReferencedSlugs(content);
  if (targets.length > 0) {
    await trx
      .insertInto('prompt_references')
      .values(targets.map((target_slug) => ({ prompt_id: promptId, user_id: userId, target_slug })))
      .execute();
  }
}

/** The user's prompts matching a list filter (status, MCP exposure, every label, every term). */
function filtered(db: Kysely<Schema>, userId: string, filter: PromptListFilter) {
  let query = db.selectFrom('prompts').where('prompts.user_id', '=', userId);
  if (filter.status) query = query.where('prompts.status', '=', filter.status);
  if (filter.availableInMcp !== undefined) {
    query = query.where('prompts.available_in_mcp', '=', writeBool(filter.availableInMcp));
  }
  for (const label of filter.labels) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('prompt_labels')
          .select(sql`1`.as('one'))
          .whereRef('prompt_labels.prompt_id', '=', 'prompts.id')
          .where('prompt_labels.user_id', '=', userId)
          .where('prompt_labels.label', '=', label),
      ),
    );
  }
  for (const term of filter.terms) {
    query = query.where(sql<boolean>`prompts.search_text like ${`%${escapeLike(term)}%`} escape '\\'`);
  }
  return query;
}

/**
 * The filtered prompts that have environment `name`, joined with the version it points to:
 * lists with `environment` show each prompt as that version.
 */
function throughEnvironment(db: Kysely<Schema>, userId: string, filter: PromptListFilter, name: string) {
  return filtered(db, userId, filter)
    .innerJoin('prompt_environments', (join) =>
      join
        .onRef('prompt_environments.prompt_id', '=', 'prompts.id')
        .on('prompt_environments.user_id', '=', userId)
        .on('prompt_environments.name', '=', name),
    )
    .innerJoin('prompt_versions', (join) =>
      join
        .onRef('prompt_versions.prompt_id', '=', 'prompt_environments.prompt_id')
        .onRef('prompt_versions.version', '=', 'prompt_environments.version'),
    );
}

/** The columns of `prompts` a version replaces, when a list is read through an environment. */
const VERSIONED_COLUMNS = ['title', 'description', 'content', 'labels', 'variable_schema', 'version'] as const;
const KEPT_COLUMNS = [
  'id',
  'user_id',
  'slug',
  'search_text',
  'status',
  'available_in_mcp',
  'created_at',
  'updated_at',
] as const;

type PageWindow = { offset: number; limit: number };

/** One page of a query's rows (`rows` picks the columns, order and window) and how many rows it has in all. */
async function page<TB extends keyof Schema, T>(
  query: SelectQueryBuilder<Schema, TB, object>,
  rows: (query: SelectQueryBuilder<Schema, TB, object>) => Promise<T[]>,
): Promise<{ items: T[]; total: number }> {
  const [items, counted] = await Promise.all([
    rows(query),
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: readCount(counted.n as number | string | bigint) };
}

/** Prompts newest first (the most recently updated; ties by id), one window of them. */
function newestFirst<TB extends 'prompts' | 'prompt_references' | 'prompt_environments' | 'prompt_versions', O>(
  query: SelectQueryBuilder<Schema, TB, O>,
  window: PageWindow,
) {
  // References by name: a query generic over its tables cannot name their columns as typed strings.
  return query
    .orderBy(sql.ref('prompts.updated_at'), 'desc')
    .orderBy(sql.ref('prompts.id'), 'desc')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

/**
 * Adds one to the user's `prompts_stamp` (migration 0021): the first statement of every transaction that
 * writes the user's prompts or their environment pointers. Prompts kept in memory are valid only under the
 * stamp they were read with (PostgreSQL: domain/prompts/prompt-service.ts), and taking the user's row first
 * gives every such transaction the same lock order.
 */
export async function bumpPromptsStamp(trx: Kysely<Schema>, userId: string): Promise<void> {
  await trx
    .updateTable('users')
    .set((eb) => ({ prompts_stamp: eb('prompts_stamp', '+', 1) }))
    .where('id', '=', userId)
    .execute();
}

export async function insertPrompt(
  { db, dialect }: PromptStoreDeps,
  prompt: PromptRecord,
  versions: PromptVersion[],
  change: Change,
): Promise<void> {
  await writeOrConflict(
    dialect,
    () =>
      db.transaction().execute(async (trx) => {
        await bumpPromptsStamp(trx, prompt.userId);
        await trx
          .insertInto('prompts')
          .values({
            id: prompt.id,
            user_id: prompt.userId,
            slug: prompt.slug,
            title: prompt.title,
            description: prompt.description,
            content: prompt.content,
            search_text: searchText(prompt),
            status: prompt.status,
            available_in_mcp: writeBool(prompt.availableInMcp),
            labels: writeJson(prompt.labels),
            variable_schema: writeJson(prompt.variableSchema),
            version: prompt.version,
            created_at: prompt.createdAt,
            updated_at: prompt.updatedAt,
          })
          .execute();
        // One statement per version: a single multi-row insert could pass PostgreSQL's parameter limit.
        for (const version of versions) {
          await trx
            .insertInto('prompt_versions')
            .values({
              ...versionRow(prompt.userId, prompt.id, version.version, {
                ...version,
                variableSchema: version.variable_schema,
              }),
              commit_message: version.commit_message,
              created_at: version.created_at,
            })
            .execute();
        }
        await replaceLabels(trx, prompt.userId, prompt.id, prompt.labels);
        await replaceReferences(trx, prompt.userId, prompt.id, prompt.content);
        await appendAudit(
          trx,
          auditEntry(change, prompt.userId, {
            objectType: 'prompt',
            objectId: prompt.id,
            objectHandle: prompt.slug,
            action: 'created',
            hashBefore: null,
            hashAfter: contentHash(prompt.content),
          }),
        );
      }),
    `Slug '${prompt.slug}' is already in use`,
  );
}

export async function findPromptById(hot: PromptHotReads, userId: string, id: string) {
  const [row] = await hot.byId(userId, id);
  return row && toRecord(row);
}

export async function findPromptBySlug(hot: PromptHotReads, userId: string, slug: string) {
  const [row] = await hot.bySlug(userId, slug);
  return row && toRecord(row);
}

export async function listPrompts(db: Kysely<Schema>, userId: string, filter: PromptListFilter) {
  if (filter.environment !== undefined) {
    const query = throughEnvironment(db, userId, filter, filter.environment);
    const result = await page(query, (q) =>
      newestFirst(
        q.select([
          ...SUMMARY_COLUMNS.filter((c) => c !== 'title' && c !== 'description' && c !== 'labels').map(
            (c) => `prompts.${c}` as const,
          ),
          'prompt_versions.title',
          'prompt_versions.description',
          'prompt_versions.labels',
        ]),
        filter,
      ),
    );
    return { items: result.items.map(toSummary), total: result.total };
  }
  const query = filtered(db, userId, filter);
  const result = await page(query, (q) =>
    newestFirst(q.select(SUMMARY_COLUMNS.map((c) => `prompts.${c}` as const)), filter),
  );
  return { items: result.items.map(toSummary), total: result.total };
}

export async function listPromptRecords(db: Kysely<Schema>, userId: string, filter: PromptListFilter) {
  if (filter.environment !== undefined) {
    const query = throughEnvironment(db, userId, filter, filter.environment);
    const result = await page(query, (q) =>
      newestFirst(
        q.select([
          ...KEPT_COLUMNS.map((c) => `prompts.${c}` as const),
          ...VERSIONED_COLUMNS.map((c) => `prompt_versions.${c}` as const),
        ]),
        filter,
      ),
    );
    return { items: result.items.map(toRecord), total: result.total };
  }
  const query = filtered(db, userId, filter);
  const result = await page(query, (q) => newestFirst(q.selectAll('prompts'), filter));
  return { items: result.items.map(toRecord), total: result.total };
}

export async function promptsReferencing(
  db: Kysely<Schema>,
  userId: string,
  slug: string,
  options: Parameters<PromptStore['referencedBy']>[2],
) {
  let query = db
    .selectFrom('prompt_references')
    .innerJoin('prompts', 'prompts.id', 'prompt_references.prompt_id')
    .where('prompt_references.user_id', '=', userId)
    .where('prompt_references.target_slug', '=', slug)
    .where('prompts.user_id', '=', userId);
  if (options.status) query = query.where('prompts.status', '=', options.status);
  const result = await page(query, (q) =>
    newestFirst(q.select(SUMMARY_COLUMNS.map((c) => `prompts.${c}` as const)), options),
  );
  return { items: result.items.map(toSummary), total: result.total };
}

export async function templatesBySlug(db: Kysely<Schema>, userId: string, slugs: string[]) {
  if (slugs.length === 0) return new Map();
  const rows = await db
    .selectFrom('prompts')
    .select(['slug', 'content', 'variable_schema', 'status'])
    .where('user_id', '=', userId)
    .where('slug', 'in', slugs)
    .execute();
  return new Map(
    rows.map((row) => [
      row.slug,
      {
        content: row.content,
        variableSchema: schemaOf(row.variable_schema, row.content),
        status: row.status as PromptStatus,
      },
    ]),
  );
}

export async function existingSlugs(
  hot: PromptHotReads,
  userId: string,
  slugs: string[],
  options: { status?: PromptStatus } = {},
) {
  if (slugs.length === 0) return new Set<string>();
  const rows =
    options.status === undefined
      ? await hot.slugsIn(slugs.length)(userId, ...slugs)
      : await hot.slugsWithStatusIn(slugs.length)(userId, options.status, ...slugs);
  return new Set(rows.map((row) => row.slug));
}

export async function updatePrompt(
  db: Kysely<Schema>,
  userId: string,
  id: string,
  { patch, updatedAt, expectedVersion, newVersion, action }: PromptUpdate,
  change: Change,
) {
  return db.transaction().execute(async (trx) => {
    await bumpPromptsStamp(trx, userId);
    const current = await trx
      .selectFrom('prompts')
      .select(['slug', 'title', 'description', 'content', 'labels', 'variable_schema'])
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    if (!current) return false;
    const textChanged = patch.title !== undefined || patch.description !== undefined || patch.content !== undefined;
    const version = newVersion ? expectedVersion + 1 : expectedVersion;
    // Guarded by the version: of two concurrent writers from one version, only one lands.
    const result = await trx
      .updateTable('prompts')
      .set({
        updated_at: updatedAt,
        version,
        ...(patch.title !== undefined && { title: patch.title }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.content !== undefined && { content: patch.content }),
        ...(textChanged && { search_text: searchText({ ...current, ...patch }) }),
        ...(patch.status !== undefined && { status: patch.status }),
        ...(patch.availableInMcp !== undefined && { available_in_mcp: writeBool(patch.availableInMcp) }),
        ...(patch.labels !== undefined && { labels: writeJson(patch.labels) }),
        ...(patch.variableSchema !== undefined && { variable_schema: writeJson(patch.variableSchema) }),
      })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    if (patch.labels !== undefined) await replaceLabels(trx, userId, id, patch.labels);
    if (patch.content !== undefined) await replaceReferences(trx, userId, id, patch.content);
    if (newVersion) {
      const fields: VersionedFields = {
        title: patch.title ?? current.title,
        description: patch.description ?? current.description,
        content: patch.content ?? current.content,
        labels: patch.labels ?? readJson<string[]>(current.labels),
        variableSchema: patch.variableSchema ?? readJson<VariableSchema>(current.variable_schema),
      };
      await trx
        .insertInto('prompt_versions')
        .values({
          ...versionRow(userId, id, version, fields),
          commit_message: newVersion.commitMessage,
          created_at: updatedAt,
        })
        .execute();
    }
    await appendAudit(
      trx,
      auditEntry(change, userId, {
        objectType: 'prompt',
        objectId: id,
        objectHandle: current.slug,
        action: action ?? 'updated',
        hashBefore: contentHash(current.content),
        hashAfter: contentHash(patch.content ?? current.content),
      }),
    );
    return true;
  });
}

export async function deletePrompt(db: Kysely<Schema>, userId: string, id: string, change: Change) {
  return db.transaction().execute(async (trx) => {
    await bumpPromptsStamp(trx, userId);
    const gone = await trx
      .deleteFrom('prompts')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returning(['slug', 'content'])
      .executeTakeFirst();
    if (!gone) return false;
    await appendAudit(
      trx,
      auditEntry(change, userId, {
        objectType: 'prompt',
        objectId: id,
        objectHandle: gone.slug,
        action: 'deleted',
        hashBefore: contentHash(gone.content),
        hashAfter: null,
      }),
    );
    return true;
  });
}

export async function promptSlugsStartingWith(db: Kysely<Schema>, userId: string, prefix: string) {
  const rows = await db
    .selectFrom('prompts')
    .select('slug')
    .where('user_id', '=', userId)
    .where(sql<boolean>`slug like ${`${escapeLike(prefix)}%`} escape '\\'`)
    .execute();
  return rows.map((row) => row.slug);
}

export async function listPromptVersions(
  db: Kysely<Schema>,
  userId: string,
  promptId: string,
  { offset, limit }: PageWindow,
) {
  const query = db.selectFrom('prompt_versions').where('user_id', '=', userId).where('prompt_id', '=', promptId);
  const result = await page(query, (q) =>
    q
      .select(['version', 'title', 'commit_message', 'created_at'])
      .orderBy('version', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
  );
  return {
    items: result.items.map((row) => ({
      version: row.version,
      title: row.title,
      commitMessage: row.commit_message,
      createdAt: row.created_at,
    })),
    total: result.total,
  };
}

export async function findPromptVersion(db: Kysely<Schema>, userId: string, promptId: string, version: number) {
  const row = await db
    .selectFrom('prompt_versions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('prompt_id', '=', promptId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row && toVersion(row);
}

export function createPromptStore(db: Kysely<Schema>, dialect: SqlDialect): PromptStore {
  const deps = { db, dialect };
  const hot = hotReads(db);
  return {
    insert: (prompt, versions, change) => insertPrompt(deps, prompt, versions, change),
    findById: (userId, id) => findPromptById(hot, userId, id),
    findBySlug: (userId, slug) => findPromptBySlug(hot, userId, slug),
    list: (userId, filter) => listPrompts(db, userId, filter),
    listRecords: (userId, filter) => listPromptRecords(db, userId, filter),
    referencedBy: (userId, slug, options) => promptsReferencing(db, userId, slug, options),
    templatesBySlug: (userId, slugs) => templatesBySlug(db, userId, slugs),
    existingSlugs: (userId, slugs, options) => existingSlugs(hot, userId, slugs, options),
    update: (userId, id, update, change) => updatePrompt(db, userId, id, update, change),
    delete: (userId, id, change) => deletePrompt(db, userId, id, change),
    slugsStartingWith: (userId, prefix) => promptSlugsStartingWith(db, userId, prefix),
    listVersions: (userId, promptId, range) => listPromptVersions(db, userId, promptId, range),
    findVersion: (userId, promptId, version) => findPromptVersion(db, userId, promptId, version),
    listEnvironments: (userId, promptId) => listEnvironments(db, userId, promptId),
    environmentVersion: (userId, promptId, target) => environmentVersion(db, userId, promptId, target),
    setEnvironment: (userId, promptId, environment, maxCount, change) =>
      setEnvironment(db, userId, promptId, environment, maxCount, change),
    marketplaceVersions: (userId, promptIds) => marketplaceVersions(db, userId, promptIds),
    removeEnvironment: (userId, promptId, name, change) => removeEnvironment(db, userId, promptId, name, change),
  };
}
