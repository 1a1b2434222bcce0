import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../common/actor.js';
import { changeBy } from '../common/audit.js';
import { budgetedPage, checkBudget } from '../common/budget.js';
import { ConflictError, NotFoundError } from '../common/errors.js';
import { normaliseLabelFilter } from '../common/field-schemas.js';
import { listWindow, toolWindow } from '../common/pagination.js';
import { searchWords } from '../common/search-words.js';
import { freeSlug, insertWithSlug, slugify } from '../common/slug.js';
import { parseInput } from '../common/validation.js';
import { atVersion, resolvePrompt } from './prompt-environments.js';
import { promptIndexItemPreview, promptListItemPreview, toPrompt, toSummary } from './prompt-presenter.js';
import { applyChange, checkSchema, findPrompt, newPromptRecord, type PromptDeps } from './prompt-records.js';
import {
  type CreatePromptInput,
  createPromptBody,
  type ListPromptsQuery,
  type Prompt,
  type PromptIndexPage,
  type PromptList,
  type PromptListItem,
  type UpdatePromptInput,
  updatePromptBody,
} from './prompt-schemas.js';
import type { PromptPatch, PromptRecord, PromptSummaryRecord } from './prompt-store.js';
import { extractVariables } from './template.js';
import { promptArguments } from './variables.js';

// Prompts: list, read, create, update, delete.

export const MESSAGES = {
  created: 'Prompt created successfully',
  updated: 'Prompt updated successfully',
  deleted: 'Prompt deleted successfully',
} as const;

/** Prompts exposed to MCP clients (`available_in_mcp`), whatever their status, with variables and schemas. */
export async function listPromptsForMcp(
  { prompts }: PromptDeps,
  actor: Actor,
  options: { search?: string; offset: number; limit: number },
) {
  const terms = searchWords(options.search, 'whitespace');
  // Whole records: the variables and their schema come with the page, in one query.
  const page = await prompts.listRecords(actor.userId, {
    availableInMcp: true,
    labels: [],
    terms,
    offset: options.offset,
    limit: options.limit,
  });
  return {
    total: page.total,
    items: page.items.map((record) => ({
      ...toSummary(record),
      variables: extractVariables(record.content),
      variable_schema: record.variableSchema,
    })),
  };
}

export async function listPrompts({ prompts }: PromptDeps, actor: Actor, query: ListPromptsQuery): Promise<PromptList> {
  checkBudget(query.max_chars);
  const { offset, page } = listWindow(query);
  const answer = (total: number) => (items: PromptListItem[], next_cursor: string | null) => ({
    prompts: items,
    total,
    page,
    per_page: query.per_page,
    next_cursor,
  });
  let status = query.status;
  if (publishedPromptsOnly(actor.integrations)) {
    if (status === 'draft') return answer(0)([], null);
    status = 'published';
  }
  const terms = searchWords(query.search, 'whitespace');
  const labels = normaliseLabelFilter(query.label);
  const filter = {
    ...(status && { status }),
    ...(query.environment !== undefined && { environment: query.environment }),
    labels,
    terms,
    offset,
    limit: query.per_page,
  };
  const found: { items: PromptListItem[]; total: number } = query.full
    ? await prompts.listRecords(actor.userId, filter).then(async ({ items, total }) => ({
        total,
        items: (await throughMarketplacePointers(prompts, actor, items)).map((record) => {
          const { broken_references: _notInLists, ...prompt } = toPrompt(record);
          return prompt;
        }),
      }))
    : await prompts.list(actor.userId, filter).then(async ({ items, total }) => ({
        total,
        items: (await throughMarketplacePointers(prompts, actor, items)).map(toSummary),
      }));
  return budgetedPage({
    items: found.items,
    offset,
    more: offset + found.items.length < found.total,
    maxChars: query.max_chars,
    shape: promptListItemPreview,
    answer: answer(found.total),
  }).answer;
}

/**
 * For a marketplace-only key, the listed prompts whose owner marked a pointer for the marketplace as that
 * pointer's version (one query per page); for any other caller, the items as they are.
 */
export async function throughMarketplacePointers<T extends PromptSummaryRecord>(
  prompts: PromptDeps['prompts'],
  actor: Actor,
  items: T[],
): Promise<T[]> {
  if (!publishedPromptsOnly(actor.integrations) || items.length === 0) return items;
  const pinned = await prompts.marketplaceVersions(
    actor.userId,
    items.map((item) => item.id),
  );
  return items.map((item) => {
    const version = pinned.get(item.id);
    if (!version) return item;
    return 'content' in item
      ? (atVersion(item as unknown as PromptRecord, version) as unknown as T)
      : { ...item, title: version.title, description: version.description, labels: version.labels };
  });
}

/**
 * `svc_list_prompts`: the prompts available to AI tools from `cursor`, each with the arguments
 * `svc_get_prompt` takes, at most `limit` within `max_chars`.
 */
export async function listPromptIndex(
  deps: PromptDeps,
  actor: Actor,
  options: { search?: string; cursor?: number; limit: number; max_chars: number },
): Promise<PromptIndexPage> {
  checkBudget(options.max_chars);
  const offset = toolWindow(options.cursor, options.limit);
  const page = await listPromptsForMcp(deps, actor, {
    ...(options.search !== undefined && { search: options.search }),
    offset,
    limit: options.limit,
  });
  return budgetedPage({
    items: page.items.map(({ variables, variable_schema, ...summary }) => ({
      ...summary,
      variables: promptArguments({ variables, variable_schema }),
    })),
    offset,
    more: offset + page.items.length < page.total,
    maxChars: options.max_chars,
    shape: promptIndexItemPreview,
    answer: (prompts, next_cursor) => ({ prompts, total: page.total, next_cursor }),
  }).answer;
}

/**
 * One prompt with its current version and the references whose target does not exist — for a key that
 * sees published prompts only, whose target it cannot see (a draft looks exactly like a missing prompt).
 */
export async function getPrompt(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  environment?: string,
): Promise<Prompt> {
  const resolved = await resolvePrompt(deps, actor, idOrSlug, { environment });
  const prompt = toPrompt(resolved.record);
  if (resolved.environment !== undefined) prompt.environment = resolved.environment;
  const targets = prompt.references.map((reference) => reference.slice(1));
  const existing = await deps.prompts.existingSlugs(
    actor.userId,
    targets,
    publishedPromptsOnly(actor.integrations) ? { status: 'published' } : {},
  );
  prompt.broken_references = prompt.references.filter((_, i) => !existing.has(targets[i] as string));
  return prompt;
}

export async function createPrompt(
  { prompts, clock, ids }: PromptDeps,
  actor: Actor,
  input: CreatePromptInput,
): Promise<{ id: string; slug: string; title: string; version: number; message: string }> {
  const data = parseInput(createPromptBody, input);
  const variableSchema = data.variable_schema ?? {};
  checkSchema(variableSchema, data.content);
  const at = clock.now();
  const now = at.toISOString();
  return insertWithSlug(
    data.slug,
    () => freeSlug(slugify(data.title), (prefix) => prompts.slugsStartingWith(actor.userId, prefix)),
    async (slug) => {
      const record = newPromptRecord(data, {
        id: ids('prm'),
        userId: actor.userId,
        slug,
        version: 1,
        createdAt: now,
        updatedAt: now,
      });
      await prompts.insert(
        record,
        [
          {
            version: 1,
            title: record.title,
            description: record.description,
            content: record.content,
            labels: record.labels,
            variable_schema: record.variableSchema,
            commit_message: data.commit_message ?? null,
            created_at: now,
          },
        ],
        changeBy(actor, at),
      );
      return { id: record.id, slug: record.slug, title: record.title, version: 1, message: MESSAGES.created };
    },
    (slug) => new ConflictError(`You already have a prompt with slug '${slug}'`),
  );
}

/**
 * Partial update. A change of title, description, content, labels or variable schema stores a new
 * version (with `commit_message`); with `ifMatch` (`"<version>"`) it is refused (412) unless the
 * prompt is still at that version.
 */
export async function updatePrompt(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  input: UpdatePromptInput,
  ifMatch?: string,
): Promise<{ id: string; slug: string; version: number; message: string }> {
  const data = parseInput(updatePromptBody, input);
  const { record, version } = await applyChange(
    deps,
    actor,
    idOrSlug,
    (current) => {
      const patch: PromptPatch = {
        ...(data.title !== undefined && { title: data.title }),
        ...(data.description !== undefined && { description: data.description }),
        ...(data.content !== undefined && { content: data.content }),
        ...(data.status !== undefined && { status: data.status }),
        ...(data.available_in_mcp !== undefined && { availableInMcp: data.available_in_mcp }),
        ...(data.labels !== undefined && { labels: data.labels }),
        ...(data.variable_schema !== undefined && { variableSchema: data.variable_schema ?? {} }),
      };
      if (patch.content !== undefined || patch.variableSchema !== undefined) {
        checkSchema(patch.variableSchema ?? current.variableSchema, patch.content ?? current.content);
      }
      return { patch, forceVersion: false, commitMessage: data.commit_message ?? null };
    },
    ifMatch,
  );
  return { id: record.id, slug: record.slug, version, message: MESSAGES.updated };
}

export async function deletePrompt(deps: PromptDeps, actor: Actor, idOrSlug: string): Promise<{ message: string }> {
  const record = await findPrompt(deps, actor, idOrSlug);
  if (!(await deps.prompts.delete(actor.userId, record.id, changeBy(actor, deps.clock.now())))) {
    throw new NotFoundError('Prompt');
  }
  return { message: MESSAGES.deleted };
}
