// The variables a render of a prompt asks for: its own, and (when references are resolved) those of every
// prompt it includes, with the schema the server applies (the rendered prompt's own schema wins).

import type { Prompt, VariableSchema } from '../../src/contract';
import { expandReferences, MAX_REFERENCE_DEPTH } from '../../src/domain/prompts/template';
import { api, isAbort } from './api';
import { bare } from './prompt-slugs';
import { extractVariables } from './template';

export interface RenderVariables {
  /** The prompt's own variables. */
  own: string[];
  /** With references resolved: in the order the expanded content uses them. */
  resolved: string[];
  /** The merged schema of all of them. */
  schema: VariableSchema;
}

export async function renderVariables(prompt: Prompt, signal: AbortSignal): Promise<RenderVariables> {
  const templates: Prompt[] = [prompt];
  const seen = new Set([prompt.slug]);
  let frontier = prompt.references.map(bare);
  for (let depth = 0; depth < MAX_REFERENCE_DEPTH && frontier.length > 0; depth++) {
    const slugs = [...new Set(frontier)].filter((slug) => !seen.has(slug));
    for (const slug of slugs) seen.add(slug);
    const found = await Promise.all(
      slugs.map((slug) =>
        api.prompt(slug, signal).catch((error: unknown) => {
          if (isAbort(error)) throw error;
          return undefined; // missing: the server names it when rendering
        }),
      ),
    );
    frontier = [];
    for (const item of found) {
      if (!item) continue;
      templates.push(item);
      frontier.push(...item.references.map(bare));
    }
  }
  let resolved: string[];
  try {
    const contents = new Map<string, string | undefined>(templates.map((item) => [item.slug, item.content]));
    resolved = extractVariables(expandReferences(prompt.slug, contents));
  } catch {
    // A cycle, a missing prompt or too deep a nesting: the server explains it; ask for every variable seen.
    resolved = [...new Set(templates.flatMap((item) => item.variables))];
  }
  // fromEntries, later entries winning: the prompt's own schema (last) beats those it includes.
  const schema: VariableSchema = Object.fromEntries(
    [...templates].reverse().flatMap((item) => Object.entries(item.variable_schema)),
  );
  return { own: prompt.variables, resolved, schema };
}
