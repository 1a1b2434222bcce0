import type { z } from 'zod';
import type { Actor } from '../common/actor.js';
import { budgetedPage, checkBudget } from '../common/budget.js';
import type { Clock } from '../common/clock.js';
import { NotFoundError, ValidationError } from '../common/errors.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { mergePatch, sameJson } from '../common/json.js';
import { listWindow, toolWindow } from '../common/pagination.js';
import { issuesToDetails, parseInput } from '../common/validation.js';
import { memoryPreview, toMemory } from './memory-presenter.js';
import {
  type CreateMemoryInput,
  createMemoryBody,
  type ListMemoriesQuery,
  type Memory,
  type MemoryList,
  type MemorySearchPage,
  metadataSchema,
  type Priority,
  type RankedMemory,
  type UpdateMemoryInput,
  updateMemoryBody,
} from './memory-schemas.js';
import { searchMemories, touch } from './memory-search.js';
import type { MemoryFilter, MemoryRecord, MemoryStore } from './memory-store.js';
import type { RankingConfig } from './ranking.js';

export { searchTerms } from './memory-search.js';

/** Whether writing `next` would change nothing (what an import reports as unchanged). */
export const memoryUnchanged = (
  current: MemoryRecord,
  next: Pick<MemoryRecord, 'text' | 'projectName' | 'metadata'>,
): boolean =>
  current.text === next.text && current.projectName === next.projectName && sameJson(current.metadata, next.metadata);

export const MEMORY_MESSAGES = {
  created: 'Memory created successfully',
  updated: 'Memory updated successfully',
  deleted: 'Memory deleted successfully',
} as const;

/** Records that memories were read; implementations batch the writes. */
export interface AccessSink {
  record(userId: string, id: string, at: Date): void;
}

export interface SearchInput extends MemoryFilter {
  search: string;
  project_name?: string;
  offset: number;
  limit: number;
  explain?: boolean;
  /** REST lists need the number of all matches; MCP does not, and skips the count. */
  withTotal?: boolean;
}

/** A new memory of `actor` from validated create input (one memory or a batch item). */
export function newMemoryRecord(
  actor: Actor,
  data: z.output<typeof createMemoryBody>,
  now: string,
  ids: IdGenerator,
): MemoryRecord {
  return {
    id: ids('mem'),
    userId: actor.userId,
    text: data.text,
    projectName: data.project_name ?? null,
    metadata: data.metadata ?? {},
    createdAt: now,
    updatedAt: now,
    lastAccessedAt: null,
  };
}

/** The tool search (`svc_search_memories`): a window of the ranked results within a budget. */
export interface SearchPageInput {
  search: string;
  project_name?: string;
  /** Where to start: a `next_cursor` of an earlier page (0 = the first). */
  cursor?: number;
  limit: number;
  max_chars: number;
}

/** Reads that must not count as accesses see a sink that drops them. */
const NOT_COUNTED: AccessSink = { record() {} };

export interface MemoryServiceDeps {
  memories: MemoryStore;
  access: AccessSink;
  clock: Clock;
  ids: IdGenerator;
  ranking: RankingConfig;
}

export function createMemoryService(deps: MemoryServiceDeps) {
  const { memories, access, clock, ids } = deps;
  // Budgeted answers rank without counting, then count what they show (`countAccesses`).
  const uncounted: MemoryServiceDeps = { ...deps, access: NOT_COUNTED };
  const countAccesses = (actor: Actor, shown: readonly RankedMemory[]) => {
    for (const memory of shown) {
      const at = memory.last_accessed_at === null ? clock.now() : new Date(memory.last_accessed_at);
      access.record(actor.userId, memory.memory_id, at);
    }
  };
  /** A cursor past the ranked results' depth is not one this server hands out (the search refuses it too). */
  const checkRankedCursor = (cursor: number | undefined) => {
    if (cursor !== undefined && cursor > 0 && cursor >= deps.ranking.candidateLimit) {
      throw new ValidationError({
        cursor: `Ranked results go ${deps.ranking.candidateLimit} deep: this cursor is past them`,
      });
    }
  };
  async function find(actor: Actor, id: string): Promise<MemoryRecord> {
    const record = isId('mem', id) ? await memories.findById(actor.userId, id) : undefined;
    if (!record) throw new NotFoundError('Memory');
    return record;
  }

  return {
    async create(actor: Actor, input: CreateMemoryInput): Promise<Memory & { message: string }> {
      const data = parseInput(createMemoryBody, input);
      const record = newMemoryRecord(actor, data, clock.now().toISOString(), ids);
      await memories.insert(record);
      return { ...toMemory(record), message: MEMORY_MESSAGES.created };
    },

    /** Reading a memory counts as an access. */
    async get(actor: Actor, id: string): Promise<Memory> {
      const record = await find(actor, id);
      touch(access, [record], clock.now());
      return toMemory(record);
    },

    async update(actor: Actor, id: string, input: UpdateMemoryInput): Promise<Memory & { message: string }> {
      const data = parseInput(updateMemoryBody, input);
      const record = await find(actor, id);
      let metadata: Record<string, unknown> | undefined;
      if (data.metadata !== undefined) {
        const merged = metadataSchema.safeParse(mergePatch(record.metadata, data.metadata));
        if (!merged.success) {
          const details = issuesToDetails(merged.error.issues);
          throw new ValidationError(
            Object.fromEntries(
              Object.entries(details).map(([path, message]) => [
                path === 'body' ? 'metadata' : `metadata.${path}`,
                message,
              ]),
            ),
          );
        }
        metadata = merged.data;
      }
      const updatedAt = clock.now().toISOString();
      const patch = {
        ...(data.text !== undefined && { text: data.text }),
        ...(data.project_name !== undefined && { projectName: data.project_name }),
        ...(metadata !== undefined && { metadata }),
      };
      if (!(await memories.update(actor.userId, record.id, patch, updatedAt))) throw new NotFoundError('Memory');
      return { ...toMemory({ ...record, ...patch, updatedAt }), message: MEMORY_MESSAGES.updated };
    },

    async delete(actor: Actor, id: string): Promise<{ message: string }> {
      const record = await find(actor, id);
      if (!(await memories.delete(actor.userId, record.id))) throw new NotFoundError('Memory');
      return { message: MEMORY_MESSAGES.deleted };
    },

    /**
     * The REST list: without `search`, a filtered list (newest update first, `project_name` = that project
     * and its descendants); with `search` (even empty), the ranked search. From its `cursor` or `page`, within
     * `max_chars` when given (budget.ts).
     */
    async list(actor: Actor, query: ListMemoriesQuery): Promise<MemoryList> {
      checkBudget(query.max_chars);
      const { offset, page } = listWindow(query);
      const filter = {
        ...(query.category !== undefined && { category: query.category }),
        ...(query.priority !== undefined && { priority: query.priority as Priority }),
        tags: [...new Set(query.tag.map((t) => t.trim()).filter(Boolean))],
      };
      const answer = (total: number) => (memories: RankedMemory[], next_cursor: string | null) => ({
        memories,
        total,
        page,
        per_page: query.per_page,
        next_cursor,
      });
      if (query.search === undefined) {
        const found = await memories.list(actor.userId, {
          ...filter,
          ...(query.project_name !== undefined && { projectTree: query.project_name }),
          offset,
          limit: query.per_page,
        });
        return budgetedPage({
          items: found.items.map(toMemory),
          offset,
          more: offset + found.items.length < found.total,
          maxChars: query.max_chars,
          shape: memoryPreview,
          answer: answer(found.total),
        }).answer;
      }
      checkRankedCursor(query.cursor);
      const result = await searchMemories(uncounted, actor, {
        ...filter,
        search: query.search,
        ...(query.project_name !== undefined && { project_name: query.project_name }),
        offset,
        limit: query.per_page,
        explain: query.explain,
        withTotal: true,
      });
      const { answer: ranked, shown } = budgetedPage({
        items: result.memories,
        offset,
        more: offset + result.memories.length < result.total,
        maxChars: query.max_chars,
        shape: memoryPreview,
        reach: deps.ranking.candidateLimit - 1,
        answer: answer(result.total),
      });
      countAccesses(actor, result.memories.slice(0, shown));
      return ranked;
    },

    /**
     * `svc_search_memories`: the ranked search from `cursor`, at most `limit` results within `max_chars`. One
     * result more than the page is ranked (never shown or counted) to know whether the list goes on, so no
     * total is counted. Only the results shown count as accessed: a result the budget left for the next page
     * keeps its place, and the next page starts exactly there.
     */
    async searchPage(actor: Actor, input: SearchPageInput): Promise<MemorySearchPage> {
      checkBudget(input.max_chars);
      const offset = toolWindow(input.cursor, input.limit);
      checkRankedCursor(input.cursor);
      const result = await searchMemories(uncounted, actor, {
        search: input.search,
        ...(input.project_name !== undefined && { project_name: input.project_name }),
        tags: [],
        offset,
        limit: input.limit + 1,
      });
      const { answer, shown } = budgetedPage({
        items: result.memories.slice(0, input.limit),
        offset,
        more: result.memories.length > input.limit,
        maxChars: input.max_chars,
        shape: memoryPreview,
        reach: deps.ranking.candidateLimit - 1,
        answer: (memories: RankedMemory[], next_cursor: string | null) => ({
          memories,
          count: memories.length,
          next_cursor,
        }),
      });
      countAccesses(actor, result.memories.slice(0, shown));
      return answer;
    },

    /** The ranked search without counting accesses (the context block: reading it is not using a memory). */
    rank: (actor: Actor, input: SearchInput) => searchMemories(uncounted, actor, input),

    search: (actor: Actor, input: SearchInput) => searchMemories(deps, actor, input),
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
