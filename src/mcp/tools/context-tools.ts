import { z } from 'zod';
import { projectNameSchema } from '../../domain/common/field-schemas.js';
import { type Context, type ContextMemory, contextSchema, taskSchema } from '../../domain/context/context-schemas.js';
import { defineTool, maxCharsArg, readOnly, withinBudget } from '../tool.js';

const memoryLines = (m: ContextMemory) => {
  const { keyword, project, priority, recency } = m.why.parts;
  const preview = m.truncated ? ' — a preview: svc_get_memory gives it whole' : '';
  return (
    `- [${m.memory_id}] ${m.project_name ?? '(global)'} ${JSON.stringify(m.metadata)}\n` +
    `  why: ${m.why.reason}; score ${m.why.score} (keyword ${keyword}, project ${project}, priority ${priority}, recency ${recency})${preview}\n` +
    `  ${m.text.replaceAll('\n', '\n  ')}`
  );
};

const section = (title: string, lines: string[]) => (lines.length === 0 ? [] : [`## ${title}`, ...lines, '']);

/** The block as text for models that read the text content: markdown with the same items and reasons. */
export function contextText(block: Context): string {
  const left = block.left_out;
  return [
    `# Context${block.project_name === null ? '' : ` for ${block.project_name}`}`,
    '',
    ...section('Pinned memories (high priority)', block.pinned_memories.map(memoryLines)),
    ...section('Relevant memories', block.relevant_memories.map(memoryLines)),
    ...section(
      'Prompts (get one filled in with svc_get_prompt)',
      block.prompts.map(
        (p) =>
          `- ${p.name}: ${p.title}${p.description ? ` — ${p.description}` : ''}${
            p.arguments.length > 0
              ? ` (arguments: ${p.arguments.map((a) => `${a.name}${a.required ? ' (required)' : ''}`).join(', ')})`
              : ''
          }`,
      ),
    ),
    ...section(
      'Artifacts (read one with svc_get_artifact)',
      block.artifacts.map((a) => `- ${a.project}/${a.slug}: ${a.title} (${a.size_bytes} bytes)`),
    ),
    `Left out for the budget: ${left.memories} memories (svc_search_memories), ${left.prompts} prompts (svc_list_prompts), ${left.artifacts} artifacts (svc_list_artifacts).`,
  ].join('\n');
}

export const contextTools = [
  defineTool({
    name: 'svc_get_context',
    title: 'Get context',
    description:
      'Call this first, at the start of a session or task: one bounded block of what the user has stored for it — the pinned and high-priority memories of the project (and its sub-projects, parent projects and global ones; expired and superseded memories left out), the memories most relevant to the task, the prompts available to you (name, description, arguments) and the project’s documents (artifacts: title, slug, size). ' +
      'Each memory says why it is there (reason and score parts). The answer stays within max_chars (default 20,000 characters): long memories come back as previews (truncated: true; read one whole with svc_get_memory), and left_out counts what did not fit — find those with svc_search_memories, svc_list_prompts and svc_list_artifacts.',
    input: z.strictObject({
      project_name: projectNameSchema.optional().describe('The project being worked on, e.g. "acme/backend"'),
      task: taskSchema.optional().describe('What you are about to do, in a sentence or a few'),
      max_chars: maxCharsArg,
    }),
    output: contextSchema,
    annotations: readOnly,
    async run(services, actor, args) {
      const block = await services.context.get(actor, args);
      return { structured: block, text: withinBudget(contextText(block), args.max_chars) };
    },
  }),
];
