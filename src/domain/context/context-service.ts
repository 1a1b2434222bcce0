import { CONTEXT_TASK_MAX, MAX_PER_PAGE } from '../../contract/index.js';
import type { ArtifactListItem } from '../artifacts/artifact-schemas.js';
import type { Actor } from '../common/actor.js';
import { checkBudget, fitItems, jsonLength, type PreviewShape } from '../common/budget.js';
import { ValidationError } from '../common/errors.js';
import { assertProjectName } from '../common/project.js';
import { leadingSearch } from '../common/search-words.js';
import type { RankedMemory } from '../memories/memory-schemas.js';
import type { SearchInput } from '../memories/memory-service.js';
import type { PromptSummary } from '../prompts/prompt-schemas.js';
import type { VariableSchema } from '../prompts/variables.js';
import {
  contextArtifactPreview,
  contextMemoryPreview,
  contextPromptPreview,
  toContextArtifact,
  toContextMemory,
  toContextPrompt,
} from './context-presenter.js';
import { type Context, type ContextInput, TASK_MESSAGE } from './context-schemas.js';

/** What the block reads, through the other areas' services (a narrow view of each). */
export interface ContextDeps {
  /** The ranked memory search, not counted as accesses: reading the block is not using a memory. */
  rankMemories(actor: Actor, input: SearchInput): Promise<{ memories: RankedMemory[]; total: number }>;
  /** The prompts available to AI tools, newest first, with their variables. */
  mcpPrompts(
    actor: Actor,
    window: { offset: number; limit: number },
  ): Promise<{ items: Array<PromptSummary & { variables: string[]; variable_schema: VariableSchema }>; total: number }>;
  /** The artifacts of a project and its descendants (all of them without a project), newest first. */
  artifacts(
    actor: Actor,
    project: string | undefined,
    limit: number,
  ): Promise<{ artifacts: ArtifactListItem[]; total: number }>;
}

/** How many items each section considers at most (the budget usually binds first). */
export const CONTEXT_CAPS = { pinned: 50, relevant: 20, prompts: MAX_PER_PAGE, artifacts: MAX_PER_PAGE } as const;

/**
 * How the budget is shared when not everything fits, in section order: each section gets its weight's share
 * of what is left, a section needing less gives the rest to the others, and what the fitting leaves unused
 * goes to the sections still short, in this order.
 */
const SECTIONS = [
  { key: 'pinned_memories', weight: 7 },
  { key: 'relevant_memories', weight: 7 },
  { key: 'prompts', weight: 3 },
  { key: 'artifacts', weight: 3 },
] as const;
type SectionKey = (typeof SECTIONS)[number]['key'];

/**
 * English words too common to choose memories by: a task is a sentence, and every memory containing "the"
 * would be a keyword match (the search ranks a bounded set of the newest matches).
 */
const COMMON_WORDS = new Set(
  (
    'a an and are as at be been but by can could do does for from had has have how i if in into is it its me my ' +
    'need needs no not now of on or our please should so some that the their them then there these this those ' +
    'to up us use using want was we were what when where which while who why will with would you your'
  ).split(' '),
);

/** The relevance search made of a task: its leading words, common ones left out (search-words.ts). */
export const taskSearch = (task: string | undefined): string =>
  task === undefined ? '' : leadingSearch(task, COMMON_WORDS);

interface Section<T> {
  items: T[];
  shape: PreviewShape<T>;
}

/** The largest `left_out` count, for measuring the envelope: no count can be wider. */
const WIDEST_COUNT = 999_999_999;
const ENVELOPE_SLACK = 8;

/** Characters of a section's items whole with the commas between them, or `cap` + 1 when over `cap`. */
function need<T>(items: readonly T[], cap: number): number {
  let total = items.length > 0 ? items.length - 1 : 0;
  for (const item of items) {
    total += jsonLength(item);
    if (total > cap) return cap + 1;
  }
  return total;
}

/** Shares of `room` by weight, max-min fair: a section needing less than its share gets what it needs. */
function allocate(needs: readonly number[], weights: readonly number[], room: number): number[] {
  const shares = needs.map(() => 0);
  let open = needs.map((n, i) => (n > 0 ? i : -1)).filter((i) => i >= 0);
  let left = room;
  while (open.length > 0) {
    const weight = open.reduce((sum, i) => sum + (weights[i] as number), 0);
    const settled = open.filter((i) => (needs[i] as number) <= Math.floor((left * (weights[i] as number)) / weight));
    if (settled.length === 0) {
      for (const i of open) shares[i] = Math.floor((left * (weights[i] as number)) / weight);
      break;
    }
    for (const i of settled) {
      shares[i] = needs[i] as number;
      left -= needs[i] as number;
    }
    open = open.filter((i) => !settled.includes(i));
  }
  return shares;
}

/**
 * Fits the sections into `room`: whole when everything fits; otherwise shared by weight (`allocate`), each
 * fitted in its share (budget.ts `fitItems`, previews and fewer items, possibly none), then what is unused
 * offered to the sections still short, in section order. Deterministic: the same sections and room give the
 * same choice.
 */
function fitSections(sections: ReadonlyArray<Section<unknown>>, room: number): unknown[][] {
  const needs = sections.map((section) => need(section.items, room));
  const shares = allocate(
    needs,
    SECTIONS.map((s) => s.weight),
    room,
  );
  const chosen = sections.map((section, i) => fitItems(section.items, shares[i] as number, section.shape, false));
  const used = chosen.map((items) => need(items, room));
  let left = room - used.reduce((sum, n) => sum + n, 0);
  sections.forEach((section, i) => {
    if (left <= 0 || (used[i] as number) >= (needs[i] as number)) return;
    const refit = fitItems(section.items, (used[i] as number) + left, section.shape, false);
    const size = need(refit, room);
    left -= size - (used[i] as number);
    chosen[i] = refit;
    used[i] = size;
  });
  return chosen;
}

/**
 * The context block (`GET /api/v1/context`, `svc_get_context`): for a project (optional) and a task
 * (optional), within `max_chars` characters of JSON — the high-priority memories of the project, its
 * sub-projects, its parent projects and global ones; the memories ranked best for the task (without one, the
 * project's automatic context), high-priority ones left to the first section; the prompts available to AI
 * tools with their arguments; and the project's artifacts (without content). Every memory says why it is
 * there (reason, score, parts); `left_out` counts by kind what qualified but is not shown. Reading it counts
 * as no access, so the same data, clock and input give the same block.
 */
export async function getContext(deps: ContextDeps, actor: Actor, input: ContextInput): Promise<Context> {
  checkBudget(input.max_chars);
  if (input.project_name !== undefined) assertProjectName(input.project_name);
  if (input.task !== undefined && input.task.length > CONTEXT_TASK_MAX)
    throw new ValidationError({ task: TASK_MESSAGE });
  const project = input.project_name;
  const scope = project === undefined ? {} : { project_name: project };
  const search = taskSearch(input.task);

  const [pins, high, ranked, prompts, artifacts] = await Promise.all([
    // Pinned memories in scope, whatever their priority: always in the block, before the high-priority ones.
    deps.rankMemories(actor, {
      search: '',
      ...scope,
      pinned: true,
      tags: [],
      offset: 0,
      limit: CONTEXT_CAPS.pinned,
      explain: true,
      withTotal: true,
    }),
    deps.rankMemories(actor, {
      search: '',
      ...scope,
      priority: 'high',
      pinned: false,
      tags: [],
      offset: 0,
      limit: CONTEXT_CAPS.pinned,
      explain: true,
      withTotal: true,
    }),
    deps.rankMemories(actor, {
      search,
      ...scope,
      tags: [],
      offset: 0,
      limit: CONTEXT_CAPS.relevant + CONTEXT_CAPS.pinned,
      explain: true,
    }),
    deps.mcpPrompts(actor, { offset: 0, limit: CONTEXT_CAPS.prompts }),
    deps.artifacts(actor, project, CONTEXT_CAPS.artifacts),
  ]);
  const reason = search === '' ? 'automatic context (project, priority, recent use)' : 'matches the task';
  // Every pinned or high-priority memory in scope is in the first section (shown or counted there), so
  // relevance takes the others.
  const relevant = ranked.memories
    .filter((m) => m.metadata.priority !== 'high' && !m.pinned)
    .slice(0, CONTEXT_CAPS.relevant);
  const pinned = {
    memories: [
      ...pins.memories.map((m) => toContextMemory(m, 'pinned', project)),
      ...high.memories.map((m) => toContextMemory(m, 'high priority', project)),
    ].slice(0, CONTEXT_CAPS.pinned),
    total: pins.total + high.total,
  };

  const sections: Record<SectionKey, Section<unknown>> = {
    pinned_memories: {
      items: pinned.memories,
      shape: contextMemoryPreview as PreviewShape<unknown>,
    },
    relevant_memories: {
      items: relevant.map((m) => toContextMemory(m, reason, project)),
      shape: contextMemoryPreview as PreviewShape<unknown>,
    },
    prompts: { items: prompts.items.map(toContextPrompt), shape: contextPromptPreview as PreviewShape<unknown> },
    artifacts: {
      items: artifacts.artifacts.map((a) => toContextArtifact(a, project)),
      shape: contextArtifactPreview as PreviewShape<unknown>,
    },
  };
  const block = (chosen: unknown[][], counts?: number): Context => {
    const [p = [], r = [], pr = [], a = []] = chosen;
    return {
      project_name: project ?? null,
      max_chars: input.max_chars,
      pinned_memories: p as Context['pinned_memories'],
      relevant_memories: r as Context['relevant_memories'],
      prompts: pr as Context['prompts'],
      artifacts: a as Context['artifacts'],
      left_out: {
        memories: counts ?? pinned.total - p.length + (relevant.length - r.length),
        prompts: counts ?? prompts.total - pr.length,
        artifacts: counts ?? artifacts.total - a.length,
      },
    };
  };

  const ordered = SECTIONS.map(({ key }) => sections[key]);
  const room = input.max_chars - jsonLength(block([], WIDEST_COUNT)) - ENVELOPE_SLACK;
  const chosen = fitSections(ordered, room);
  let answer = block(chosen);
  // The sizes above are exact; this only guards them: drop from the last section until it fits.
  let last = chosen.length - 1;
  while (last >= 0 && jsonLength(answer) > input.max_chars) {
    const items = chosen[last] as unknown[];
    if (items.length === 0) last--;
    else {
      items.pop();
      answer = block(chosen);
    }
  }
  return answer;
}

export function createContextService(deps: ContextDeps) {
  return { get: (actor: Actor, input: ContextInput) => getContext(deps, actor, input) };
}

export type ContextService = ReturnType<typeof createContextService>;
