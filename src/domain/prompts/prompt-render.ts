import type { Actor } from '../common/actor.js';
import type { FieldErrors } from '../common/errors.js';
import { ValidationError } from '../common/errors.js';
import { parseInput } from '../common/validation.js';
import { resolvePrompt } from './prompt-environments.js';
import { toPrompt } from './prompt-presenter.js';
import { type PromptDeps, reachableTemplates } from './prompt-records.js';
import { type Prompt, type RenderPromptInput, type RenderResult, renderPromptBody } from './prompt-schemas.js';
import {
  expandReferencesWith,
  extractVariables,
  PromptReferenceError,
  RenderTooLargeError,
  substituteVariables,
} from './template.js';
import { mustSupply, resolveVariables, type VariableSchema } from './variables.js';

export interface RenderOptions {
  /** Only a prompt exposed to MCP (`available_in_mcp`) can be rendered. */
  mcpOnly?: boolean;
  /**
   * `error` (the default): a missing target, a cycle or a seventh level is a validation error naming the
   * chain. `keep`: such references stay as written (`@slug`), listed in `references_broken` — MCP prompts
   * are listed whatever their references, so each must also render.
   */
  brokenReferences?: 'error' | 'keep';
  /**
   * Refuse a render that lacks a value for one of the prompt's own variables that must be supplied (required
   * and without a default): what MCP `prompts/list` announces as a required argument.
   */
  requireArguments?: boolean;
  /** Render the version this environment points to (404 when the prompt has no such environment). */
  environment?: string | undefined;
  /** Without `environment`: the default environment's version when the prompt has it (MCP reads). */
  useDefaultEnvironment?: boolean;
}

/** A budget error as the validation error every surface shows (REST 400, MCP -32602, tool error). */
const tooLarge = (error: RenderTooLargeError) => new ValidationError({ [error.field]: error.message }, error.message);

/**
 * Renders a prompt: expands `@references` (recursively, at most 5 deep; cycles, missing targets and
 * overflow are a validation error naming the chain), then substitutes variables. Values come from the
 * caller, else the variable's default, else '' for an optional variable. A referenced prompt's
 * variables follow its own schema; the rendered prompt's schema wins on a shared name. Strict mode
 * refuses missing required and unknown variables; otherwise missing ones stay as written. Values
 * outside an `enum` are always refused. The result is at most `renderMaxChars` characters, counted while
 * it is built (expansion is memoised, so each prompt is expanded once per depth); past it, a validation
 * error naming the reference chain (or the variable) that overflowed. See RenderOptions for the rest.
 */
export async function renderPrompt(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  input: RenderPromptInput,
  options: RenderOptions = {},
): Promise<RenderResult & { prompt: Prompt; references_broken: string[] }> {
  const { variables, resolve, strict } = parseInput(renderPromptBody, input);
  const { record, environment } = await resolvePrompt(deps, actor, idOrSlug, {
    environment: options.environment,
    useDefault: options.useDefaultEnvironment ?? false,
    mcpOnly: options.mcpOnly ?? false,
  });
  if (options.requireArguments) {
    const spec = (name: string) =>
      Object.hasOwn(record.variableSchema, name) ? record.variableSchema[name] : undefined;
    const absent = extractVariables(record.content).filter(
      (name) => mustSupply(spec(name)) && !Object.hasOwn(variables, name),
    );
    if (absent.length > 0) {
      throw new ValidationError(
        Object.fromEntries(absent.map((name) => [`variables.${name}`, 'Required argument without a value'])),
        `Missing required arguments: ${absent.join(', ')}`,
      );
    }
  }
  let content = record.content;
  let schema: VariableSchema = record.variableSchema;
  let resolved: string[] = [];
  let broken: string[] = [];
  if (resolve) {
    const templates = await reachableTemplates(deps, actor, record);
    try {
      const expansion = expandReferencesWith(
        record.slug,
        new Map([...templates].map(([slug, t]) => [slug, t?.content])),
        { maxChars: deps.renderMaxChars, broken: options.brokenReferences === 'keep' ? 'keep' : 'throw' },
      );
      content = expansion.content;
      broken = expansion.broken;
      const inserted = new Set(expansion.expanded);
      resolved = [...templates.keys()].filter((slug) => inserted.has(slug)).map((slug) => `@${slug}`);
      // The schemas of the prompts actually inserted; the rendered prompt's own (last) wins.
      schema = Object.assign(
        {},
        ...[...templates]
          .filter(([slug]) => slug === record.slug || inserted.has(slug))
          .reverse()
          .map(([, t]) => t?.variableSchema ?? {}),
      );
    } catch (error) {
      if (error instanceof PromptReferenceError)
        throw new ValidationError({ references: error.message }, error.message);
      if (error instanceof RenderTooLargeError) throw tooLarge(error);
      throw error;
    }
  }
  const resolution = resolveVariables(extractVariables(content), schema, variables);
  const problems: FieldErrors = {};
  for (const [name, reason] of Object.entries(resolution.invalid)) problems[`variables.${name}`] = reason;
  if (strict) {
    for (const name of resolution.missing) problems[`variables.${name}`] = 'Required variable without a value';
    for (const name of resolution.unknown) problems[`variables.${name}`] = 'Not a variable of this prompt';
  }
  if (Object.keys(problems).length > 0) {
    const summary = [
      strict && resolution.missing.length > 0 && `missing ${resolution.missing.join(', ')}`,
      strict && resolution.unknown.length > 0 && `unknown ${resolution.unknown.join(', ')}`,
      Object.keys(resolution.invalid).length > 0 && `not allowed ${Object.keys(resolution.invalid).join(', ')}`,
    ].filter(Boolean);
    throw new ValidationError(problems, `Variables: ${summary.join('; ')}`);
  }
  let rendered: string;
  try {
    rendered = substituteVariables(content, resolution.values, deps.renderMaxChars).content;
  } catch (error) {
    if (error instanceof RenderTooLargeError) throw tooLarge(error);
    throw error;
  }
  const prompt = toPrompt(record);
  if (environment !== undefined) prompt.environment = environment;
  return {
    prompt,
    content: rendered,
    variables_used: resolution.used,
    variables_missing: resolution.missing,
    references_resolved: resolved,
    references_broken: broken,
  };
}
