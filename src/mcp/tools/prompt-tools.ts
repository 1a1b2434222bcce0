import { z } from 'zod';
import { ValidationError } from '../../domain/errors.js';
import { promptSummarySchema } from '../../domain/prompts/prompt-schemas.js';
import { defineTool, looseInt, readOnly } from '../tool.js';

export const promptTools = [
  defineTool({
    name: 'svc_list_prompts',
    title: 'List prompts',
    description:
      'List the reusable prompts the user has made available to AI tools (for clients without MCP prompt support). Get one, filled in, with svc_get_prompt.',
    input: z.strictObject({
      search: z.string().optional().describe('Words that must all occur in title, description or content'),
      limit: looseInt(1, 100).default(50),
    }),
    output: z.object({ prompts: z.array(promptSummarySchema), total: z.number().int() }),
    annotations: readOnly,
    async run(services, actor, args) {
      const page = await services.prompts.listForMcp(actor, {
        ...(args.search !== undefined && { search: args.search }),
        offset: 0,
        limit: args.limit,
      });
      const text =
        page.items.length === 0
          ? 'No prompts are available to AI tools.'
          : page.items.map((p) => `${p.slug}: ${p.title}${p.description ? ` — ${p.description}` : ''}`).join('\n');
      const summaries = page.items.map(({ variables: _variables, variable_schema: _schema, ...summary }) => summary);
      return { structured: { prompts: summaries, total: page.total }, text };
    },
  }),
  defineTool({
    name: 'svc_get_prompt',
    title: 'Get prompt',
    description:
      "Get a prompt by slug with its {{variables}} filled in from `variables` and its @references to other prompts expanded. Variables not supplied take their default; without one they stay as written. Values outside a variable's allowed list are refused.",
    input: z.strictObject({
      slug: z.string().optional().describe('The prompt slug (or id)'),
      name: z.string().optional().describe('Same as slug'),
      variables: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
        .optional()
        .describe('Values for the prompt variables, e.g. {"language": "TypeScript"}'),
    }),
    output: z.object({
      slug: z.string(),
      title: z.string(),
      content: z.string(),
      variables_used: z.array(z.string()),
      variables_missing: z.array(z.string()),
      references_resolved: z.array(z.string()),
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
        { mcpOnly: true },
      );
      return {
        structured: {
          slug: rendered.prompt.slug,
          title: rendered.prompt.title,
          content: rendered.content,
          variables_used: rendered.variables_used,
          variables_missing: rendered.variables_missing,
          references_resolved: rendered.references_resolved,
        },
        text: rendered.content,
      };
    },
  }),
];
