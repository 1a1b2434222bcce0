import type { Actor } from '../common/actor.js';
import { budgetedPage, checkBudget } from '../common/budget.js';
import { ValidationError } from '../common/errors.js';
import { listWindow, toolWindow } from '../common/pagination.js';
import { memoryPreview, toMemory } from './memory-presenter.js';
import type { ListMemoriesQuery, MemoryList, MemorySearchPage, Priority, RankedMemory } from './memory-schemas.js';
import { searchMemories } from './memory-search.js';
import { type AccessSink, type MemoryServiceDeps, type SearchInput, visibilityFilter } from './memory-service.js';

// Memories as lists: the REST list and search, the tool search and the uncounted ranking, within budgets.

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

/**
 * The ranked search (`searchMemories`, unchanged) without counting accesses: budgeted answers count only what
 * they show (`countShown`), and the context block counts nothing.
 */
export const rankMemories = (deps: MemoryServiceDeps, actor: Actor, input: SearchInput) =>
  searchMemories({ ...deps, access: NOT_COUNTED }, actor, input);

/** Counts the memories an answer shows as read at the time the search gave them. */
function countShown({ access, clock }: MemoryServiceDeps, actor: Actor, shown: readonly RankedMemory[]) {
  for (const memory of shown) {
    const at = memory.last_accessed_at === null ? clock.now() : new Date(memory.last_accessed_at);
    access.record(actor.userId, memory.memory_id, at);
  }
}

/** A cursor past the ranked results' depth is not one this server hands out (the search refuses it too). */
function checkRankedCursor({ ranking }: MemoryServiceDeps, cursor: number | undefined) {
  if (cursor !== undefined && cursor > 0 && cursor >= ranking.candidateLimit) {
    throw new ValidationError({ cursor: `Ranked results go ${ranking.candidateLimit} deep: this cursor is past them` });
  }
}

/**
 * The REST list: without `search`, a filtered list (newest update first, `project_name` = that project and its
 * descendants); with `search` (even empty), the ranked search. From its `cursor` or `page`, within `max_chars`
 * when given (budget.ts). Only the ranked results shown count as accessed.
 */
export async function listMemories(
  deps: MemoryServiceDeps,
  actor: Actor,
  query: ListMemoriesQuery,
): Promise<MemoryList> {
  checkBudget(query.max_chars);
  const { offset, page } = listWindow(query);
  const filter = {
    ...(query.category !== undefined && { category: query.category }),
    ...(query.priority !== undefined && { priority: query.priority as Priority }),
    tags: [...new Set(query.tag.map((t) => t.trim()).filter(Boolean))],
  };
  const visibility = query.stale ? 'stale' : query.include_expired ? 'all' : 'visible';
  const answer = (total: number) => (memories: RankedMemory[], next_cursor: string | null) => ({
    memories,
    total,
    page,
    per_page: query.per_page,
    next_cursor,
  });
  if (query.search === undefined) {
    const found = await deps.memories.list(actor.userId, {
      ...filter,
      ...visibilityFilter(visibility, deps.clock.now()),
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
  checkRankedCursor(deps, query.cursor);
  const result = await rankMemories(deps, actor, {
    ...filter,
    search: query.search,
    ...(query.project_name !== undefined && { project_name: query.project_name }),
    offset,
    limit: query.per_page,
    explain: query.explain,
    withTotal: true,
    visibility,
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
  countShown(deps, actor, result.memories.slice(0, shown));
  return ranked;
}

/**
 * `svc_search_memories`: the ranked search from `cursor`, at most `limit` results within `max_chars`. One
 * result more than the page is ranked (never shown or counted) to know whether the list goes on, so no total
 * is counted. Only the results shown count as accessed: a result the budget left for the next page keeps its
 * place, and the next page starts exactly there.
 */
export async function searchMemoryPage(
  deps: MemoryServiceDeps,
  actor: Actor,
  input: SearchPageInput,
): Promise<MemorySearchPage> {
  checkBudget(input.max_chars);
  const offset = toolWindow(input.cursor, input.limit);
  checkRankedCursor(deps, input.cursor);
  const result = await rankMemories(deps, actor, {
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
  countShown(deps, actor, result.memories.slice(0, shown));
  return answer;
}
