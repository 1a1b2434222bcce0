import { type Kysely, type Selectable, sql } from 'kysely';
import { ConflictError } from '../domain/errors.js';
import type { PromptStatus, PromptSummary } from '../domain/prompts/prompt-schemas.js';
import type { PromptRecord, PromptStore } from '../domain/prompts/prompt-store.js';
import { escapeLike, readBool, readCount, readJson, writeBool, writeJson } from './codec.js';
import { isUniqueViolation } from './database.js';
import type { PromptsTable, Schema } from './schema.js';

const toRecord = (row: Selectable<PromptsTable>): PromptRecord => ({
  id: row.id,
  userId: row.user_id,
  slug: row.slug,
  title: row.title,
  description: row.description,
  content: row.content,
  status: row.status as PromptStatus,
  availableInMcp: readBool(row.available_in_mcp),
  labels: readJson<string[]>(row.labels),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
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

export function createPromptStore(db: Kysely<Schema>): PromptStore {
  async function replaceLabels(trx: Kysely<Schema>, userId: string, promptId: string, labels: string[]) {
    await trx.deleteFrom('prompt_labels').where('prompt_id', '=', promptId).execute();
    if (labels.length > 0) {
      await trx
        .insertInto('prompt_labels')
        .values(labels.map((label) => ({ prompt_id: promptId, user_id: userId, label })))
        .execute();
    }
  }

  return {
    async insert(prompt) {
      try {
        await db.transaction().execute(async (trx) => {
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
              created_at: prompt.createdAt,
              updated_at: prompt.updatedAt,
            })
            .execute();
          await replaceLabels(trx, prompt.userId, prompt.id, prompt.labels);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`Slug '${prompt.slug}' is already in use`);
        throw error;
      }
    },

    async findById(userId, id) {
      const row = await db
        .selectFrom('prompts')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async findBySlug(userId, slug) {
      const row = await db
        .selectFrom('prompts')
        .selectAll()
        .where('user_id', '=', userId)
        .where('slug', '=', slug)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async list(userId, filter) {
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
      const [rows, count] = await Promise.all([
        query
          .select(SUMMARY_COLUMNS.map((c) => `prompts.${c}` as const))
          .orderBy('prompts.updated_at', 'desc')
          .orderBy('prompts.id', 'desc')
          .limit(filter.limit)
          .offset(filter.offset)
          .execute(),
        query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      const items: PromptSummary[] = rows.map((row) => ({
        id: row.id,
        slug: row.slug,
        title: row.title,
        description: row.description,
        status: row.status as PromptStatus,
        available_in_mcp: readBool(row.available_in_mcp),
        labels: readJson<string[]>(row.labels),
        created_at: row.created_at,
        updated_at: row.updated_at,
      }));
      return { items, total: readCount(count.n) };
    },

    async contentsBySlug(userId, slugs) {
      if (slugs.length === 0) return new Map();
      const rows = await db
        .selectFrom('prompts')
        .select(['slug', 'content'])
        .where('user_id', '=', userId)
        .where('slug', 'in', slugs)
        .execute();
      return new Map(rows.map((row) => [row.slug, row.content]));
    },

    async update(userId, id, patch, updatedAt) {
      return db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('prompts')
          .select(['title', 'description', 'content'])
          .where('user_id', '=', userId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!current) return false;
        const textChanged = patch.title !== undefined || patch.description !== undefined || patch.content !== undefined;
        await trx
          .updateTable('prompts')
          .set({
            updated_at: updatedAt,
            ...(patch.title !== undefined && { title: patch.title }),
            ...(patch.description !== undefined && { description: patch.description }),
            ...(patch.content !== undefined && { content: patch.content }),
            ...(textChanged && { search_text: searchText({ ...current, ...patch }) }),
            ...(patch.status !== undefined && { status: patch.status }),
            ...(patch.availableInMcp !== undefined && { available_in_mcp: writeBool(patch.availableInMcp) }),
            ...(patch.labels !== undefined && { labels: writeJson(patch.labels) }),
          })
          .where('user_id', '=', userId)
          .where('id', '=', id)
          .execute();
        if (patch.labels !== undefined) await replaceLabels(trx, userId, id, patch.labels);
        return true;
      });
    },

    async delete(userId, id) {
      const result = await db
        .deleteFrom('prompts')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async slugsStartingWith(userId, prefix) {
      const rows = await db
        .selectFrom('prompts')
        .select('slug')
        .where('user_id', '=', userId)
        .where(sql<boolean>`slug like ${`${escapeLike(prefix)}%`} escape '\\'`)
        .execute();
      return rows.map((row) => row.slug);
    },
  };
}
