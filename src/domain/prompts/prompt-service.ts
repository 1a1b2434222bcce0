import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import type { IdGenerator } from '../common/ids.js';
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
}

/** Prompts: CRUD (prompt-crud.ts), versions (prompt-versions.ts) and rendering (prompt-render.ts). */
export function createPromptService({ renderMaxChars = DEFAULT_RENDER_MAX_CHARS, ...rest }: PromptServiceDeps) {
  const deps: PromptDeps = { ...rest, renderMaxChars };
  return {
    render: (actor: Actor, idOrSlug: string, input: RenderPromptInput, options?: RenderOptions) =>
      renderPrompt(deps, actor, idOrSlug, input, options),
    listForMcp: (actor: Actor, options: { search?: string; offset: number; limit: number }) =>
      listPromptsForMcp(deps, actor, options),
    /** `svc_list_prompts` and the context block: MCP prompts with their arguments, within a budget. */
    index: (actor: Actor, options: { search?: string; cursor?: number; limit: number; max_chars: number }) =>
      listPromptIndex(deps, actor, options),
    list: (actor: Actor, query: ListPromptsQuery) => listPrompts(deps, actor, query),
    get: (actor: Actor, idOrSlug: string) => getPrompt(deps, actor, idOrSlug),
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
