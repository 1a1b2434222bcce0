import { z } from 'zod';
import { MAX_PROMPT_ENVIRONMENTS } from '../../contract/index.js';
import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../common/actor.js';
import { changeBy } from '../common/audit.js';
import { NotFoundError, ValidationError } from '../common/errors.js';
import { parseInput } from '../common/validation.js';
import { findPrompt, type PromptDeps } from './prompt-records.js';
import {
  environmentNameSchema,
  type PromptEnvironment,
  type PromptEnvironmentList,
  type PromptEnvironmentSet,
  type PromptVersion,
  type SetPromptEnvironmentInput,
  setEnvironmentBody,
} from './prompt-schemas.js';
import type { PromptEnvironmentRecord, PromptRecord } from './prompt-store.js';

// Environments: named pointers (`production`, `staging`, …) from a prompt to one of its versions. The writes
// are `setEnvironment` and `removeEnvironment` alone (where an audit trail or webhooks hook in); reads go
// through `resolvePrompt`, which every prompt read and render calls.

/** A 404 that says which pointer is missing. */
export class EnvironmentNotSetError extends NotFoundError {
  constructor(slug: string, name: string) {
    super('Environment');
    this.message = `Prompt '${slug}' has no environment '${name}'`;
  }
}

const toEnvironment = (record: PromptEnvironmentRecord): PromptEnvironment => ({
  name: record.name,
  version: record.version,
  marketplace: record.marketplace,
  updated_at: record.updatedAt,
});

const nameInput = z.object({ name: environmentNameSchema });
/** A name from a path, checked whoever passed it (`details.name` when it breaks the rules). */
const environmentName = (name: string) => parseInput(nameInput, { name }).name;

/** The record as `version` has it (status and MCP exposure are the prompt's, not kept in versions). */
export const atVersion = (record: PromptRecord, version: PromptVersion): PromptRecord => ({
  ...record,
  title: version.title,
  description: version.description,
  content: version.content,
  labels: version.labels,
  variableSchema: version.variable_schema,
  version: version.version,
});

export interface EnvironmentChoice {
  /** Serve the version this environment points to; unset → 404. */
  environment?: string | undefined;
  /** Without `environment`: the service's default environment when the prompt has it, else the latest. */
  useDefault?: boolean;
  /** Only a prompt exposed to MCP. */
  mcpOnly?: boolean;
}

/**
 * The prompt the actor asked for, as the version it should see: the chosen environment's, else (with
 * `useDefault`) the default environment's when set on the prompt, else the current one. A marketplace-only
 * key sees a prompt whose owner marked a pointer for the marketplace through that pointer alone.
 */
export async function resolvePrompt(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  choice: EnvironmentChoice = {},
): Promise<{ record: PromptRecord; environment?: string }> {
  const record = await findPrompt(deps, actor, idOrSlug, choice.mcpOnly ?? false);
  if (publishedPromptsOnly(actor.integrations)) {
    const pinned = await deps.prompts.environmentVersion(actor.userId, record.id, { marketplace: true });
    if (pinned) {
      if (choice.environment !== undefined && choice.environment !== pinned.environment) {
        throw new EnvironmentNotSetError(record.slug, choice.environment);
      }
      return { record: atVersion(record, pinned.version), environment: pinned.environment };
    }
  }
  const name = choice.environment ?? (choice.useDefault ? deps.defaultEnvironment : undefined);
  if (name === undefined) return { record };
  const found = await deps.prompts.environmentVersion(actor.userId, record.id, { name });
  if (!found) {
    if (choice.environment === undefined) return { record };
    throw new EnvironmentNotSetError(record.slug, name);
  }
  return { record: atVersion(record, found.version), environment: found.environment };
}

export async function listEnvironments(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
): Promise<PromptEnvironmentList> {
  const record = await findPrompt(deps, actor, idOrSlug);
  let environments = await deps.prompts.listEnvironments(actor.userId, record.id);
  if (publishedPromptsOnly(actor.integrations) && environments.some((e) => e.marketplace)) {
    environments = environments.filter((e) => e.marketplace);
  }
  return { environments: environments.map(toEnvironment), total: environments.length };
}

/** Creates or moves environment `name` of a prompt to one of its versions. */
export async function setEnvironment(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  name: string,
  input: SetPromptEnvironmentInput,
): Promise<PromptEnvironmentSet> {
  const environment = environmentName(name);
  const data = parseInput(setEnvironmentBody, input);
  const record = await findPrompt(deps, actor, idOrSlug);
  const written: PromptEnvironmentRecord = {
    name: environment,
    version: data.version,
    marketplace: data.marketplace ?? false,
    updatedAt: deps.clock.now().toISOString(),
  };
  const change = changeBy(actor, deps.clock.now());
  const outcome = await deps.prompts.setEnvironment(actor.userId, record.id, written, MAX_PROMPT_ENVIRONMENTS, change);
  if (outcome === 'no_prompt') throw new NotFoundError('Prompt');
  if (outcome === 'no_version') {
    throw new ValidationError(
      { version: `Prompt '${record.slug}' has no version ${data.version}` },
      `Prompt '${record.slug}' has no version ${data.version}`,
    );
  }
  if (outcome === 'too_many') {
    const message = `A prompt has at most ${MAX_PROMPT_ENVIRONMENTS} environments; remove one first`;
    throw new ValidationError({ name: message }, message);
  }
  return {
    ...toEnvironment(written),
    message: `Environment '${environment}' now points to version ${data.version}`,
  };
}

export async function removeEnvironment(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  name: string,
): Promise<{ message: string }> {
  const environment = environmentName(name);
  const record = await findPrompt(deps, actor, idOrSlug);
  if (
    !(await deps.prompts.removeEnvironment(actor.userId, record.id, environment, changeBy(actor, deps.clock.now())))
  ) {
    throw new EnvironmentNotSetError(record.slug, environment);
  }
  return { message: `Environment '${environment}' removed` };
}
