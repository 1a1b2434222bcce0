import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { type ChangeStamp, createFreshCache, NO_CHANGE_STAMP } from '../common/fresh-cache.js';
import type { IdGenerator } from '../common/ids.js';
import { deepFreeze } from '../common/json.js';
import type { PageRequest } from '../common/pagination.js';
import {
  createPrompt,
  deletePrompt,
  getPrompt,
  listPromptIndex,
  listPrompts,
  listPromptsForMcp,
  updatePrompt,
} from './prompt-crud.js';
import type { PromptDeps } from './prompt-records.js';
import { type RenderOptions, renderPrompt } from './prompt-render.js';
import type {
  CreatePromptInput,
  ListPromptsQuery,
  Prompt,
  RenderPromptInput,
  RestorePromptInput,
  UpdatePromptInput,
} from './prompt-schemas.js';
import type { PromptStore } from './prompt-store.js';
import { getVersion, listVersions, referencedBy, restorePrompt } from './prompt-versions.js';
import { DEFAULT_RENDER_MAX_CHARS } from './template.js';

export type { RenderOptions };

export interface PromptServiceDeps {
  prompts: PromptStore;
  clock: Clock;
  ids: IdGenerator;
  /** The largest rendered prompt in characters (`RENDER_MAX_CHARS`); default DEFAULT_RENDER_MAX_CHARS. */
  renderMaxChars?: number;
  /** The database's change stamp: with one, prompt reads are answered from memory until anything changes. */
  changeStamp?: ChangeStamp;
}

/** Prompts kept in memory by `get`, and their most total characters (a prompt over a tenth is never kept). */
const CACHED_PROMPTS = 2_000;
const CACHED_PROMPT_CHARS = 4_000_000;

/**
 * `getPrompt` answered from memory while the database is unchanged (fresh-cache.ts): the authenticated
 * read that clients repeat most. The answer depends on the user, the id or slug, and whether the key sees
 * drafts (its broken references differ); it is frozen, since every caller shares it.
 */
function cachedGetPrompt(deps: PromptDeps, changeStamp: ChangeStamp) {
  const cache = createFreshCache<Prompt>({
    stamp: changeStamp,
    maxEntries: CACHED_PROMPTS,
    maxWeight: CACHED_PROMPT_CHARS,
    weigh: (prompt) => prompt.content.length + (prompt.description?.length ?? 0) + 1000,
  });
  return async (actor: Actor, idOrSlug: string): Promise<Prompt> => {
    const key = `${actor.userId}\n${publishedPromptsOnly(actor.integrations) ? 'published' : 'all'}\n${idOrSlug}`;
    const { value, token } = cache.lookup(key, actor.stamp);
    if (value) return value;
    const prompt = deepFreeze(await getPrompt(deps, actor, idOrSlug));
    cache.store(key, prompt, token);
    return prompt;
  };
}

/** Prompts: CRUD (prompt-crud.ts), versions (prompt-versions.ts) and rendering (prompt-render.ts). */
export function createPromptService({
  renderMaxChars = DEFAULT_RENDER_MAX_CHARS,
  changeStamp = NO_CHANGE_STAMP,
  ...rest
}: PromptServiceDeps) {
  const deps: PromptDeps = { ...rest, renderMaxChars };
  const get = cachedGetPrompt(deps, changeStamp);
  return {
    render: (actor: Actor, idOrSlug: string, input: RenderPromptInput, options?: RenderOptions) =>
      renderPrompt(deps, actor, idOrSlug, input, options),
    listForMcp: (actor: Actor, options: { search?: string; offset: number; limit: number }) =>
      listPromptsForMcp(deps, actor, options),
    /** `svc_list_prompts` and the context block: MCP prompts with their arguments, within a budget. */
    index: (actor: Actor, options: { search?: string; cursor?: number; limit: number; max_chars: number }) =>
      listPromptIndex(deps, actor, options),
    list: (actor: Actor, query: ListPromptsQuery) => listPrompts(deps, actor, query),
    get,
    create: (actor: Actor, input: CreatePromptInput) => createPrompt(deps, actor, input),
    update: (actor: Actor, idOrSlug: string, input: UpdatePromptInput, ifMatch?: string) =>
      updatePrompt(deps, actor, idOrSlug, input, ifMatch),
    restore: (actor: Actor, idOrSlug: string, input: RestorePromptInput, ifMatch?: string) =>
      restorePrompt(deps, actor, idOrSlug, input, ifMatch),
    versions: (actor: Actor, idOrSlug: string, query: PageRequest) => listVersions(deps, actor, idOrSlug, query),
    version: (actor: Actor, idOrSlug: string, version: number) => getVersion(deps, actor, idOrSlug, version),
    referencedBy: (actor: Actor, idOrSlug: string, query: PageRequest) => referencedBy(deps, actor, idOrSlug, query),
    delete: (actor: Actor, idOrSlug: string) => deletePrompt(deps, actor, idOrSlug),
  };
}

export type PromptService = ReturnType<typeof createPromptService>;
