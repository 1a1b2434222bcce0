import { z } from 'zod';
import { CATEGORY_MAX, MAX_TAGS, MEMORY_TEXT_MAX, PRIORITIES, TAG_MAX } from '../../contract/index.js';
import { boundedArray, boundedString } from '../common/bounds.js';
import {
  checkMetadataDepth,
  jsonObjectSchema,
  metadataObjectSchema,
  nextCursorSchema,
  projectNameSchema,
  truncatedSchema,
} from '../common/field-schemas.js';
import { budgetedListQuery, checkCursorWithPage, repeatableParam } from '../common/pagination.js';
import { searchSchema } from '../common/search.js';
import { withUnknownFieldMessages } from '../common/validation.js';

export type { Priority } from '../../contract/index.js';
export { MAX_TAGS, PRIORITIES };
export const TEXT_MAX = MEMORY_TEXT_MAX;

// Re-exported for callers that imported them from here; their home is field-schemas.ts.
export {
  METADATA_KEY_MAX,
  METADATA_MAX_BYTES,
  METADATA_MAX_DEPTH,
  metadataKeySchema,
  projectNameSchema,
} from '../common/field-schemas.js';

export const textSchema = boundedString(MEMORY_TEXT_MAX, 'Text must be at most 50,000 characters').refine(
  (value) => value.trim().length > 0,
  'Text is required',
);
const text = textSchema;

export const tagSchema = boundedString(TAG_MAX, `Tag must be at most ${TAG_MAX} characters`)
  .trim()
  .min(1, 'Tag must not be empty');
export const categorySchema = boundedString(CATEGORY_MAX, `Category must be at most ${CATEGORY_MAX} characters`)
  .trim()
  .min(1, 'Category must not be empty');

/**
 * Known metadata keys are checked; other keys are free. Size and depth are measured without recursion so
 * hostile input gets a 400, never a stack overflow.
 */
const knownMetadata = z.looseObject({
  category: categorySchema.optional(),
  priority: z.enum(PRIORITIES, { error: 'Priority must be high, medium or low' }).optional(),
  tags: boundedArray(tagSchema, MAX_TAGS, `At most ${MAX_TAGS} tags`)
    .transform((tags) => [...new Set(tags)])
    .optional(),
});

export const metadataSchema = metadataObjectSchema().pipe(knownMetadata).meta({
  description:
    'Free-form object. Known keys: category (string ≤ 100), priority (high|medium|low), tags (≤ 20 strings of 1–50). At most 16 KiB as JSON.',
});
export type Metadata = z.output<typeof metadataSchema>;

/**
 * A merge patch for metadata (RFC 7396). The known keys it sets are checked here, with the rest of the
 * body, so one answer names every bad field (`text` and `metadata.priority` together); the merged result's
 * size is checked by the service, which alone knows the stored metadata.
 */
export const metadataPatchSchema = jsonObjectSchema('Metadata must be a JSON object (a merge patch)')
  .superRefine((value, ctx) => {
    if (!checkMetadataDepth(value, ctx)) return;
    for (const [key, field] of Object.entries(knownMetadata.shape)) {
      const given = value[key];
      if (given === undefined || given === null) continue;
      const result = field.safeParse(given);
      if (result.success) continue;
      for (const issue of result.error.issues) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: [key, ...issue.path] });
      }
    }
  })
  .meta({ description: 'JSON Merge Patch: given keys replace, null removes a key' });

export const createMemoryBody = z.strictObject({
  text,
  project_name: projectNameSchema.nullable().optional(),
  metadata: metadataSchema.optional(),
});
export type CreateMemoryInput = z.input<typeof createMemoryBody>;

/** The most memories one `POST /memories/batch` creates (its body is bounded by this and the byte limit). */
export const MEMORY_BATCH_MAX = 100;

/** All or nothing: an invalid item fails the batch, `details` keyed by its path (`memories.3.text`). */
export const createMemoryBatchBody = z.strictObject({
  memories: boundedArray(createMemoryBody, MEMORY_BATCH_MAX, `At most ${MEMORY_BATCH_MAX} memories per batch`)
    .min(1, 'At least one memory is required')
    .meta({ description: `The memories to create, 1 to ${MEMORY_BATCH_MAX}, each as in POST /memories` }),
});
export type CreateMemoryBatchInput = z.input<typeof createMemoryBatchBody>;

const READ_ONLY = 'Read-only field';

/** Partial update; `metadata` is a JSON Merge Patch (RFC 7396) applied to the stored metadata. */
export const updateMemoryBody = withUnknownFieldMessages(
  z.strictObject({
    text: text.optional(),
    project_name: projectNameSchema.nullable().optional(),
    metadata: metadataPatchSchema.optional(),
  }),
  {
    memory_id: READ_ONLY,
    id: READ_ONLY,
    created_at: READ_ONLY,
    updated_at: READ_ONLY,
    last_accessed_at: READ_ONLY,
    score: READ_ONLY,
  },
);
export type UpdateMemoryInput = z.input<typeof updateMemoryBody>;

const booleanParam = z
  .enum(['true', 'false', '1', '0'], { error: 'Must be true or false' })
  .optional()
  .transform((value) => value === 'true' || value === '1');

export const listMemoriesQuery = z
  .object({
    project_name: projectNameSchema.optional(),
    category: boundedString(CATEGORY_MAX, `Category must be at most ${CATEGORY_MAX} characters`).optional(),
    priority: z.enum(PRIORITIES, { error: 'Priority must be high, medium or low' }).optional(),
    tag: repeatableParam(boundedString(TAG_MAX, `Tag must be at most ${TAG_MAX} characters`), MAX_TAGS, 'tag'),
    search: searchSchema.optional(),
    explain: booleanParam.meta({ description: 'With search: add the per-part breakdown of each score' }),
    ...budgetedListQuery,
  })
  .superRefine(checkCursorWithPage);
export type ListMemoriesQuery = z.output<typeof listMemoriesQuery>;

const scorePartsSchema = z.object({
  keyword: z.number(),
  project: z.number(),
  priority: z.number(),
  recency: z.number(),
  weights: z.object({ keyword: z.number(), project: z.number(), priority: z.number(), recency: z.number() }),
  bm25: z.number().meta({ description: "BM25 over the query's words, each by its best-matching term" }),
  coverage: z.number().optional().meta({ description: "Share of the query's words (IDF-weighted) the memory holds" }),
  proximity: z.number().optional().meta({ description: 'How close neighbouring query words stand, 0–1' }),
  matched: z
    .array(
      z.object({
        word: z.string(),
        term: z.string(),
        kind: z.enum(['exact', 'joined', 'synonym', 'prefix', 'typo']),
      }),
    )
    .optional()
    .meta({ description: 'The index term that stood for each query word found, and how it matched' }),
  ignored: z.array(z.string()).optional().meta({ description: 'Question and filler words left out' }),
});

export const memorySchema = z.object({
  memory_id: z.string(),
  text: z.string(),
  project_name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
  last_accessed_at: z.string().nullable(),
});
export type Memory = z.infer<typeof memorySchema>;

export const rankedMemorySchema = memorySchema.extend({
  score: z.number().optional().meta({ description: 'Ranking score (with search)' }),
  score_parts: scorePartsSchema.optional().meta({ description: 'Per-part breakdown (with explain=true)' }),
  truncated: truncatedSchema,
});
export type RankedMemory = z.infer<typeof rankedMemorySchema>;
export type ScoreParts = z.infer<typeof scorePartsSchema>;

export const memoryListSchema = z.object({
  memories: z.array(rankedMemorySchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
  next_cursor: nextCursorSchema,
});
export type MemoryList = z.infer<typeof memoryListSchema>;

/** `svc_search_memories`'s answer: a window of the ranked results within the budget. */
export const memorySearchPageSchema = z.object({
  memories: z.array(rankedMemorySchema),
  count: z.number().int().meta({ description: 'Memories in this answer' }),
  next_cursor: nextCursorSchema,
});
export type MemorySearchPage = z.infer<typeof memorySearchPageSchema>;

export const memoryWithMessageSchema = memorySchema.extend({ message: z.string() });

export const possibleDuplicateSchema = z.object({
  memory_id: z.string(),
  similarity: z.number().meta({ description: 'Jaccard similarity of the analysed words, 0.7–1' }),
});

/** `POST /memories`: the memory, and what the duplicate checks found (docs/api.md "Duplicates"). */
export const memoryCreatedSchema = memoryWithMessageSchema.extend({
  deduped: z.literal(true).optional().meta({
    description: 'Present (200) when an identical memory already existed: that memory is returned, nothing was created',
  }),
  possible_duplicates: z.array(possibleDuplicateSchema).optional().meta({
    description: 'Present (201) when similar memories of the same project exist: supersede or delete them explicitly',
  }),
});

export const createMemoryQuery = z.object({
  dedupe: z
    .enum(['true', 'false', '1', '0'], { error: 'Must be true or false' })
    .optional()
    .transform((value) => value !== 'false' && value !== '0')
    .meta({ description: 'false: create even when an identical memory exists, and skip the near-duplicate check' }),
});

export const memoryBatchSchema = z.object({
  memories: z.array(memorySchema).meta({ description: 'The created memories, in the order they were sent' }),
  message: z.string(),
});
export type MemoryBatchWritten = z.infer<typeof memoryBatchSchema>;
export type MemoryWritten = z.infer<typeof memoryWithMessageSchema>;
export type MemoryCreated = z.infer<typeof memoryCreatedSchema>;
export type PossibleDuplicate = z.infer<typeof possibleDuplicateSchema>;
