import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { type ChangeStamp, createStampedCache, NO_CHANGE_STAMP } from '../common/fresh-cache.js';
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
import { listEnvironments, removeEnvironment, setEnvironment } from './prompt-environments.js';
import type { PromptDeps } from './prompt-records.js';
import { type RenderOptions, renderPrompt } from './prompt-render.js';
import type {
  CreatePromptInput,
  ListPromptsQuery,
  Prompt,
  RenderPromptInput,
  RestorePromptInput,
  SetPromptEnvironmentInput,
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
  /**
   * The database's change stamp, for actors that carry no prompts stamp (dashboard sessions): with one,
   * their prompt reads are answered from memory until anything changes.
   */
  changeStamp?: ChangeStamp;
  /** The environment MCP reads serve when none is named and the prompt has it (`DEFAULT_PROMPT_ENVIRONMENT`). */
  defaultEnvironment?: string | undefined;
}

/** Prompts kept in memory by `get`, and their most total characters (a prompt over a tenth is never kept). */
const CACHED_PROMPTS = 2_000;
const CACHED_PROMPT_CHARS = 4_000_000;

/**
 * `getPrompt` answered from memory while the user's prompts are unchanged (fresh-cache.ts
 * `createStampedCache`): the authenticated read that clients repeat most. Each answer is kept under the
 * stamp it was read with — the request's `actor.promptsStamp` (the database's change stamp on SQLite, the
 * user's prompt stamp on PostgreSQL), else the database's change stamp read here — and answers only a request
 * with the same stamp. The answer depends on the user, the id or slug, the environment and whether the key
 * sees drafts (its broken references differ); it is frozen, since every caller shares it.
 */
function cachedGetPrompt(deps: PromptDeps, changeStamp: ChangeStamp) {
  const cache = createStampedCache<Prompt>({
    maxEntries: CACHED_PROMPTS,
    maxWeight: CACHED_PROMPT_CHARS,
    weigh: (prompt) => prompt.content.length + (prompt.description?.length ?? 0) + 1000,
  });
  const keyOf = (actor: Actor, idOrSlug: string, environment: string | undefined) =>
    `${actor.userId}\n${publishedPromptsOnly(actor.integrations) ? 'published' : 'all'}\n${idOrSlug}\n${environment ?? ''}`;
  return {
    async get(actor: Actor, idOrSlug: string, environment?: string): Promise<Prompt> {
      const key = keyOf(actor, idOrSlug, environment);
      // Taken before the read: what the read returns is at least as fresh as the stamp says.
      const stamp = actor.promptsStamp ?? changeStamp();
      const cached = cache.lookup(key, stamp);
      if (cached) return cached;
      const prompt = deepFreeze(await getPrompt(deps, actor, idOrSlug, environment));
      cache.store(key, prompt, stamp);
      return prompt;
    },
    /** `get`'s answer (latest version, no environment) if it is in memory for `actor.promptsStamp`; no I/O. */
    peek(actor: Actor, idOrSlug: string): Prompt | undefined {
      return cache.lookup(keyOf(actor, idOrSlug, undefined), actor.promptsStamp);
    },
  };
}

/** Prompts: CRUD (prompt-crud.ts), versions (prompt-versions.ts) and rendering (prompt-render.ts). */
export function createPromptService({
  renderMaxChars = DEFAULT_RENDER_MAX_CHARS,
  changeStamp = NO_CHANGE_STAMP,
  ...rest
}: PromptServiceDeps) {
  const deps: PromptDeps = { ...rest, renderMaxChars };
  const cached = cachedGetPrompt(deps, changeStamp);
  return {
    render: (actor: Actor, idOrSlug: string, input: RenderPromptInput, options?: RenderOptions) =>
      renderPrompt(deps, actor, idOrSlug, input, options),
    listForMcp: (actor: Actor, options: { search?: string; offset: number; limit: number }) =>
      listPromptsForMcp(deps, actor, options),
    /** `svc_list_prompts` and the context block: MCP prompts with their arguments, within a budget. */
    index: (actor: Actor, options: { search?: string; cursor?: number; limit: number; max_chars: number }) =>
      listPromptIndex(deps, actor, options),
    list: (actor: Actor, query: ListPromptsQuery) => listPrompts(deps, actor, query),
    get: cached.get,
    /** A fresh in-memory answer of `get`, or undefined (http/hot-reads.ts). */
    peek: cached.peek,
    create: (actor: Actor, input: CreatePromptInput) => createPrompt(deps, actor, input),
    update: (actor: Actor, idOrSlug: string, input: UpdatePromptInput, ifMatch?: string) =>
      updatePrompt(deps, actor, idOrSlug, input, ifMatch),
    restore: (actor: Actor, idOrSlug: string, input: RestorePromptInput, ifMatch?: string) =>
      restorePrompt(deps, actor, idOrSlug, input, ifMatch),
    versions: (actor: Actor, idOrSlug: string, query: PageRequest) => listVersions(deps, actor, idOrSlug, query),
    version: (actor: Actor, idOrSlug: string, version: number) => getVersion(deps, actor, idOrSlug, version),
    referencedBy: (actor: Actor, idOrSlug: string, query: PageRequest) => referencedBy(deps, actor, idOrSlug, query),
    delete: (actor: Actor, idOrSlug: string) => deletePrompt(deps, actor, idOrSlug),
    environments: (actor: Actor, idOrSlug: string) => listEnvironments(deps, actor, idOrSlug),
    /** Creates or moves a pointer: the one write of environments (audit and webhooks hook here). */
    setEnvironment: (actor: Actor, idOrSlug: string, name: string, input: SetPromptEnvironmentInput) =>
      setEnvironment(deps, actor, idOrSlug, name, input),
    /** Removes a pointer: the other write of environments. */
    removeEnvironment: (actor: Actor, idOrSlug: string, name: string) => removeEnvironment(deps, actor, idOrSlug, name),
  };
}

export type PromptService = ReturnType<typeof createPromptService>;
