import { z } from 'zod';
import { projectNameSchema } from '../../domain/common/field-schemas.js';
import { idSchema } from '../../domain/common/ids.js';
import { isPlainObject } from '../../domain/common/json.js';
import { searchSchema } from '../../domain/common/search.js';
import {
  expiresAtSchema,
  MAX_TAGS,
  memoryCreatedSchema,
  memorySchema,
  memorySearchPageSchema,
  metadataPatchSchema,
  metadataSchema,
  pinnedSchema,
  type RankedMemory,
  supersedesSchema,
  textSchema,
  ttlSecondsSchema,
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

/** Lifecycle marks after the metadata: pinned, expiry, the memory that replaced it. */
const lifecycleText = (m: { expires_at?: string | null; pinned?: boolean; superseded_by?: string | null }) =>
  [
    m.pinned ? ' pinned' : '',
    m.expires_at ? ` expires ${m.expires_at}` : '',
    m.superseded_by ? ` superseded by ${m.superseded_by}` : '',
  ].join('');

const memoryText = (m: {
  memory_id: string;
  text: string;
  project_name: string | null;
  metadata: Record<string, unknown>;
  expires_at?: string | null;
  pinned?: boolean;
  superseded_by?: string | null;
}) => `[${m.memory_id}] ${m.project_name ?? '(global)'} ${JSON.stringify(m.metadata)}${lifecycleText(m)}\n${m.text}`;

/** The lifecycle arguments of the write tools, described for a model. */
const lifecycleArgs = {
  expires_at: expiresAtSchema
    .optional()
    .describe(
      'When this stops being true (ISO 8601 with a zone, e.g. 2026-12-31T00:00:00Z): hidden from search and context after it',
    ),
  ttl_seconds: ttlSecondsSchema.optional().describe('Instead of expires_at: expire this many seconds from now'),
  pinned: pinnedSchema
    .optional()
    .describe('true: always in svc_get_context for its project, first among equals, and never expires while pinned'),
};

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
      'If similar memories exist, the memory is created and possible_duplicates lists them (memory_id, similarity 0.7–1): if the new one replaces one of them, name it in supersedes (or merge them with svc_update_memory); nothing is removed automatically. dedupe: false skips both checks. ' +
      'When a fact changed (a decision was reversed, a version moved on, a preference changed), pass the ids of the memories that said the old thing in supersedes: they leave search and context but stay readable by id, marked superseded_by this one. ' +
      'For something true only for a while (a freeze, a temporary workaround), set expires_at or ttl_seconds. pinned: true keeps a memory in every svc_get_context of its project.',
    input: z.strictObject({
      text: textSchema.describe('The memory itself, 1–50,000 characters'),
      project_name: projectNameSchema.optional().describe('Project, e.g. "acme/backend"; omit for a global memory'),
      metadata: metadataArg.optional(),
      ...lifecycleArgs,
      supersedes: supersedesSchema
        .optional()
        .describe('Ids (mem_…) of your older memories this one replaces because the fact changed; at most 20'),
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
      'Change a memory: replace its text, and/or merge metadata (given keys replace, null removes a key; tags replace the whole list). ' +
      'supersedes (when a fact changed) names the older memories this one replaces: they leave search and context, marked superseded_by it; the list replaces the earlier one, so [] brings back every memory it superseded. ' +
      'expires_at (null removes it) or ttl_seconds sets when it expires; pinned keeps it in svc_get_context.',
    input: z.strictObject({
      memory_id: idSchema,
      text: textSchema.optional(),
      metadata: z
        .preprocess(commaTags, metadataPatchSchema)
        .optional()
        .describe('JSON merge patch for the metadata (tags as an array or a comma-separated string)'),
      ...lifecycleArgs,
      expires_at: expiresAtSchema
        .nullable()
        .optional()
        .describe('A new expiry (ISO 8601 with a zone); null: never expires'),
      supersedes: supersedesSchema
        .optional()
        .describe(
          'The full list of older memories (mem_…) this one replaces because the fact changed; [] removes the links',
        ),
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
