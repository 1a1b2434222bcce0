import { z } from 'zod';
import { ValidationError } from '../../domain/common/errors.js';
import { idSchema } from '../../domain/common/ids.js';
import { searchSchema } from '../../domain/common/search.js';
import {
  environmentNameSchema,
  type PromptIndexItem,
  promptIndexPageSchema,
  renderVariablesSchema,
} from '../../domain/prompts/prompt-schemas.js';
import { continueLine, cursorArg, defineTool, looseInt, maxCharsArg, readOnly, withinBudget } from '../tool.js';

const describeArgument = (v: { name: string; description?: string; required: boolean }) =>
  `${v.name}${v.required ? ' (required)' : ''}${v.description ? `: ${v.description}` : ''}`;

/** A prompt as one line (and its variables on a second), as the list tool shows it. */
const promptLine = (p: PromptIndexItem) =>
  `${p.slug}: ${p.title}${p.description ? ` — ${p.description}` : ''}${
    p.variables.length > 0 ? `\n  variables: ${p.variables.map(describeArgument).join('; ')}` : ''
  }${p.truncated ? '\n  (a preview: prompts/get or svc_get_prompt gives it whole)' : ''}`;

export const promptTools = [
  defineTool({
    name: 'svc_list_prompts',
    title: 'List prompts',
    description:
      'List the reusable prompts the user has made available to AI tools (for clients without MCP prompt support), newest first, each with the variables svc_get_prompt takes. Get one, filled in, with svc_get_prompt. ' +
      'The answer stays within max_chars (default 20,000 characters): long descriptions come back cut (truncated: true); when next_cursor is not null, call again with cursor set to it for the rest.',
    input: z.strictObject({
      search: searchSchema.optional().describe('Words that must all occur in title, description or content'),
      limit: looseInt(1, 100).default(50).describe('How many prompts at most, 1–100 (default 50)'),
      cursor: cursorArg.optional(),
      max_chars: maxCharsArg,
    }),
    output: promptIndexPageSchema,
    annotations: readOnly,
    async run(services, actor, args) {
      const page = await services.prompts.index(actor, {
        ...(args.search !== undefined && { search: args.search }),
        ...(args.cursor !== undefined && { cursor: args.cursor }),
        limit: args.limit,
        max_chars: args.max_chars,
      });
      const text =
        page.prompts.length === 0
          ? 'No prompts are available to AI tools.'
          : page.prompts.map(promptLine).join('\n') + continueLine('svc_list_prompts', page.next_cursor);
      return { structured: page, text: withinBudget(text, args.max_chars) };
    },
  }),
  defineTool({
    name: 'svc_get_prompt',
    title: 'Get prompt',
    description:
      "Get a prompt by slug with its {{variables}} filled in from `variables` and its @references to other prompts expanded. Variables not supplied take their default; without one they stay as written. A reference that cannot be expanded (missing prompt, cycle, nested too deep) stays as written and is listed in references_broken. Values outside a variable's allowed list are refused.",
    input: z.strictObject({
      slug: idSchema.optional().describe('The prompt slug (or id)'),
      name: idSchema.optional().describe('Same as slug'),
      variables: renderVariablesSchema
        .optional()
        .describe('Values for the prompt variables, e.g. {"language": "TypeScript"}'),
      environment: environmentNameSchema
        .optional()
        .describe(
          'The version an environment points to, e.g. "production" (an error when the prompt has no such environment); default: the server\'s default environment when the prompt has it, else the latest version',
        ),
    }),
    output: z.object({
      slug: z.string(),
      environment: z.string().optional().describe('The environment the prompt was served through'),
      version: z.number().int().describe('The version served'),
      title: z.string(),
      content: z.string(),
      variables_used: z.array(z.string()),
      variables_missing: z.array(z.string()),
      references_resolved: z.array(z.string()),
      references_broken: z
        .array(z.string())
        .describe('References left as written: the prompt is missing, part of a cycle or nested too deep'),
    }),
    annotations: readOnly,
    async run(services, actor, args) {
      const slug = args.slug ?? args.name;
      if (!slug || (args.slug !== undefined && args.name !== undefined && args.slug !== args.name)) {
        throw new ValidationError({ slug: 'Give the prompt slug (as slug or name, not two different ones)' });
      }
      const rendered = await services.prompts.render(
        actor,
        slug,
        { variables: args.variables ?? {}, strict: false },
        { mcpOnly: true, brokenReferences: 'keep', environment: args.environment, useDefaultEnvironment: true },
      );
      return {
        structured: {
          slug: rendered.prompt.slug,
          ...(rendered.prompt.environment !== undefined && { environment: rendered.prompt.environment }),
          version: rendered.prompt.version,
          title: rendered.prompt.title,
          content: rendered.content,
          variables_used: rendered.variables_used,
          variables_missing: rendered.variables_missing,
          references_resolved: rendered.references_resolved,
          references_broken: rendered.references_broken,
        },
        text: rendered.content,
      };
    },
  }),
];
