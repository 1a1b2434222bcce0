import { z } from 'zod';
import { projectNameSchema } from '../../domain/common/field-schemas.js';
import { idSchema } from '../../domain/common/ids.js';
import { isPlainObject } from '../../domain/common/json.js';
import { searchSchema } from '../../domain/common/search.js';
import {
  MAX_TAGS,
  memoryCreatedSchema,
  memorySchema,
  memorySearchPageSchema,
  metadataPatchSchema,
  metadataSchema,
  type RankedMemory,
  textSchema,
} from '../../domain/memories/memory-schemas.js';
import {
  additive,
  continueLine,
  cursorArg,
  defineTool,
  looseInt,
  maxCharsArg,
  overwriting,
  readOnly,
  withinBudget,
} from '../tool.js';

/** Models send tags as one comma-separated string as often as an array; both mean the same list. */
const commaTags = (value: unknown) =>
  isPlainObject(value) && typeof value.tags === 'string' && value.tags.length <= MAX_TAGS * 52
    ? {
        ...value,
        tags: value.tags
          .split(',')
          .map((tag) => tag.trim())
          .filter(Boolean),
      }
    : value;

/** The domain's metadata rules (size, depth, known keys), with tags also as a comma-separated string. */
const metadataArg = z
  .preprocess((value) => commaTags(value), metadataSchema)
  .describe(
    'category (e.g. coding_standards), priority (high|medium|low), tags (array or comma-separated); other keys are kept',
  );

const memoryText = (m: {
  memory_id: string;
  text: string;
  project_name: string | null;
  metadata: Record<string, unknown>;
}) => `[${m.memory_id}] ${m.project_name ?? '(global)'} ${JSON.stringify(m.metadata)}\n${m.text}`;

const memoryCreatedOutput = memoryCreatedSchema.omit({ message: true });

/** What a create did, then the memory, then any similar ones and what to do about them. */
function createdText(m: z.infer<typeof memoryCreatedOutput>): string {
  const head = m.deduped
    ? 'An identical memory already exists; nothing was created (deduped: true).'
    : 'Memory created.';
  const similar = m.possible_duplicates?.length
    ? `\nPossible duplicates (delete or update them if this one replaces them): ${m.possible_duplicates
        .map((d) => `${d.memory_id} (similarity ${d.similarity})`)
        .join(', ')}`
    : '';
  return `${head}\n${memoryText(m)}${similar}`;
}

/** A search result as text: the memory, its score, and how to read it whole when it is a preview. */
const resultText = (m: RankedMemory) =>
  `${memoryText(m)}\n(score ${m.score}${m.truncated ? '; a preview: svc_get_memory gives it whole' : ''})`;

export const memoryTools = [
  defineTool({
    name: 'svc_create_memory',
    title: 'Create memory',
    description:
      'Save a piece of lasting context (a coding standard, project spec, preference or procedure) so it can be found later with svc_search_memories. Use project_name (slash-separated, e.g. "acme/backend") for project-specific memories, omit it for global ones. ' +
      'If the same text (ignoring case, spacing and final punctuation) is already stored for that project, nothing is created: the existing memory comes back with deduped: true. ' +
      'If similar memories exist, the memory is created and possible_duplicates lists them (memory_id, similarity 0.7–1): if the new one replaces one of them, delete the old one with svc_delete_memory (or merge them with svc_update_memory); nothing is removed automatically. dedupe: false skips both checks.',
    input: z.strictObject({
      text: textSchema.describe('The memory itself, 1–50,000 characters'),
      project_name: projectNameSchema.optional().describe('Project, e.g. "acme/backend"; omit for a global memory'),
      metadata: metadataArg.optional(),
      dedupe: z
        .boolean()
        .optional()
        .describe('Default true; false creates even an identical memory and skips the similarity check'),
    }),
    output: memoryCreatedOutput,
    annotations: additive,
    async run(services, actor, { dedupe, ...args }) {
      const { message: _message, ...memory } = await services.memories.create(
        actor,
        args,
        dedupe === undefined ? {} : { dedupe },
      );
      return { structured: memory, text: createdText(memory) };
    },
  }),
  defineTool({
    name: 'svc_search_memories',
    title: 'Search memories',
    description:
      'Find the memories most relevant to a task: ranked by keyword similarity, project proximity (the project, its sub-projects, its parents, then global), priority and recent use. Call it with an empty search and a project_name to load the automatic context for a project (svc_get_context gives that and more in one call). ' +
      'The answer stays within max_chars (default 20,000 characters): a long memory comes back as a preview (truncated: true, its text ending with "…") — read it whole with svc_get_memory and its memory_id. When next_cursor is not null there are more results: call again with the same search and cursor set to it.',
    input: z
      .strictObject({
        search: searchSchema.optional().describe('Words to look for; empty or absent = automatic context'),
        query: searchSchema.optional().describe('Same as search (either may be used, not both differently)'),
        project_name: projectNameSchema.optional().describe('Current project, e.g. "acme/backend"'),
        limit: looseInt(1, 50).default(10).describe('How many results at most, 1–50 (default 10)'),
        cursor: cursorArg.optional(),
        max_chars: maxCharsArg,
      })
      .superRefine((value, ctx) => {
        if (value.search !== undefined && value.query !== undefined && value.search !== value.query) {
          ctx.addIssue({
            code: 'custom',
            path: ['query'],
            message: 'Give either search or query, not two different ones',
          });
        }
      }),
    output: memorySearchPageSchema,
    annotations: readOnly,
    async run(services, actor, args) {
      const page = await services.memories.searchPage(actor, {
        search: args.search ?? args.query ?? '',
        ...(args.project_name !== undefined && { project_name: args.project_name }),
        ...(args.cursor !== undefined && { cursor: args.cursor }),
        limit: args.limit,
        max_chars: args.max_chars,
      });
      const text =
        page.memories.length === 0
          ? 'No memories found.'
          : page.memories.map(resultText).join('\n\n') + continueLine('svc_search_memories', page.next_cursor);
      return { structured: page, text: withinBudget(text, args.max_chars) };
    },
  }),
  defineTool({
    name: 'svc_get_memory',
    title: 'Get memory',
    description: 'Read one memory by its memory_id (as returned by svc_search_memories or svc_create_memory).',
    input: z.strictObject({ memory_id: idSchema.describe('The memory id, mem_…') }),
    output: memorySchema,
    annotations: readOnly,
    async run(services, actor, args) {
      const memory = await services.memories.get(actor, args.memory_id);
      return { structured: memory, text: memoryText(memory) };
    },
  }),
  defineTool({
    name: 'svc_update_memory',
    title: 'Update memory',
    description:
      'Change a memory: replace its text, and/or merge metadata (given keys replace, null removes a key; tags replace the whole list).',
    input: z.strictObject({
      memory_id: idSchema,
      text: textSchema.optional(),
      metadata: z
        .preprocess(commaTags, metadataPatchSchema)
        .optional()
        .describe('JSON merge patch for the metadata (tags as an array or a comma-separated string)'),
    }),
    output: memorySchema,
    annotations: overwriting,
    async run(services, actor, args) {
      const { memory_id, ...patch } = args;
      const { message: _message, ...memory } = await services.memories.update(actor, memory_id, patch);
      return { structured: memory, text: `Memory updated.\n${memoryText(memory)}` };
    },
  }),
  defineTool({
    name: 'svc_delete_memory',
    title: 'Delete memory',
    description: 'Delete a memory permanently by its memory_id.',
    input: z.strictObject({ memory_id: idSchema }),
    output: z.object({ memory_id: z.string(), deleted: z.boolean() }),
    annotations: { ...overwriting, idempotentHint: false },
    async run(services, actor, args) {
      await services.memories.delete(actor, args.memory_id);
      return { structured: { memory_id: args.memory_id, deleted: true }, text: `Memory ${args.memory_id} deleted.` };
    },
  }),
];
