import { z } from 'zod';
import {
  CATEGORY_MAX,
  MAX_SUPERSEDES,
  MAX_TAGS,
  MEMORY_TEXT_MAX,
  MEMORY_TTL_MAX_SECONDS,
  PRIORITIES,
  TAG_MAX,
} from '../../contract/index.js';
import { boundedArray, boundedString } from '../common/bounds.js';
import {
  checkMetadataDepth,
  jsonObjectSchema,
  metadataObjectSchema,
  nextCursorSchema,
  projectNameSchema,
  truncatedSchema,
} from '../common/field-schemas.js';
import { ID_MAX, isId } from '../common/ids.js';
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

/** An expiry: an ISO 8601 time with a zone (`Z` or an offset), answered in UTC with milliseconds. */
export const expiresAtSchema = boundedString(40, 'Must be an ISO 8601 time, e.g. 2026-12-31T00:00:00Z')
  .pipe(z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 time with a zone, e.g. 2026-12-31T00:00:00Z' }))
  .transform((value) => new Date(value).toISOString())
  .meta({
    description: 'When the memory expires (ISO 8601 with a zone): hidden from search, lists and context after it',
  });

export const ttlSecondsSchema = z
  .number({ error: 'Must be a whole number of seconds' })
  .int('Must be a whole number of seconds')
  .min(1, 'Must be at least 1 second')
  .max(MEMORY_TTL_MAX_SECONDS, `Must be at most ${MEMORY_TTL_MAX_SECONDS} seconds (ten years)`)
  .meta({ description: 'Expire this many seconds from now (instead of expires_at)' });

export const pinnedSchema = z.boolean({ error: 'Must be true or false' }).meta({
  description: 'Always in the context block of its project (first among equals); never expires while pinned',
});

const memoryIdSchema = boundedString(ID_MAX, 'Not a memory id').refine(
  (value) => isId('mem', value),
  'Not a memory id',
);

export const supersedesSchema = boundedArray(memoryIdSchema, MAX_SUPERSEDES, `At most ${MAX_SUPERSEDES} memories`)
  .transform((ids) => [...new Set(ids)])
  .meta({
    description: `Ids of older memories (yours) this one replaces, at most ${MAX_SUPERSEDES}: use it when a fact changed. They leave search, lists and context but stay readable by id, with superseded_by naming this memory`,
  });

/** Lifecycle fields of a create (a single create, a batch item): expiry and pin. */
const lifecycleFields = {
  expires_at: expiresAtSchema.optional(),
  ttl_seconds: ttlSecondsSchema.optional(),
  pinned: pinnedSchema.optional(),
};

/** `expires_at` and `ttl_seconds` say the same thing: one at most. */
function oneExpiry(value: { expires_at?: unknown; ttl_seconds?: unknown }, ctx: z.RefinementCtx) {
  if (value.expires_at !== undefined && value.expires_at !== null && value.ttl_seconds !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['ttl_seconds'], message: 'Give expires_at or ttl_seconds, not both' });
  }
}

export const createMemoryBody = z
  .strictObject({
    text,
    project_name: projectNameSchema.nullable().optional(),
    metadata: metadataSchema.optional(),
    ...lifecycleFields,
  })
  .superRefine(oneExpiry);

/** `POST /memories` and `svc_create_memory`: a create may also supersede older memories. */
export const createMemoryWithLinksBody = z
  .strictObject({
    text,
    project_name: projectNameSchema.nullable().optional(),
    metadata: metadataSchema.optional(),
    ...lifecycleFields,
    supersedes: supersedesSchema.optional(),
  })
  .superRefine(oneExpiry);
export type CreateMemoryInput = z.input<typeof createMemoryWithLinksBody>;

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
  z
    .strictObject({
      text: text.optional(),
      project_name: projectNameSchema.nullable().optional(),
      metadata: metadataPatchSchema.optional(),
      expires_at: expiresAtSchema.nullable().optional().meta({ description: 'A new expiry; null: never expires' }),
      ttl_seconds: ttlSecondsSchema.optional(),
      pinned: pinnedSchema.optional(),
      supersedes: supersedesSchema.optional().meta({
        description: `The full list of older memories this one replaces (at most ${MAX_SUPERSEDES}): named ones are hidden, ones it superseded and no longer named come back; [] removes every link`,
      }),
    })
    .superRefine(oneExpiry),
  {
    memory_id: READ_ONLY,
    id: READ_ONLY,
    created_at: READ_ONLY,
    updated_at: READ_ONLY,
    last_accessed_at: READ_ONLY,
    score: READ_ONLY,
    superseded_by: 'Read-only field: set supersedes on the newer memory',
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
    include_expired: booleanParam.meta({
      description: 'Also list expired and superseded memories (hidden by default)',
    }),
    stale: booleanParam.meta({ description: 'Only expired and superseded memories (the stale list)' }),
    ...budgetedListQuery,
  })
  .superRefine(checkCursorWithPage);
export type ListMemoriesQuery = z.output<typeof listMemoriesQuery>;

const scorePartsSchema = z.object({
  keyword: z.number(),
  project: z.number(),
  priority: z.number(),
  recency: z.number(),
  weights: z.object({
    keyword: z.number(),
    project: z.number(),
    priority: z.number(),
    recency: z.number(),
    semantic: z.number().optional().meta({ description: 'Present when semantic search is configured' }),
  }),
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
  semantic: z
    .number()
    .optional()
    .meta({ description: "Semantic part: the memory's cosine similarity to the query, clamped to 0–1" }),
  similarity: z.number().optional().meta({ description: "Cosine similarity of the memory's vector to the query's" }),
  vector_search: z.enum(['used', 'unavailable']).optional().meta({
    description:
      'Semantic search configured: whether vectors took part, or the provider was down and ranking fell back to keywords',
  }),
});

export const memorySchema = z.object({
  memory_id: z.string(),
  text: z.string(),
  project_name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
  last_accessed_at: z.string().nullable(),
  expires_at: z
    .string()
    .nullable()
    .meta({ description: 'When it expires (hidden after it unless pinned); null: never' }),
  pinned: z.boolean().meta({ description: 'Always in its project context; never hidden while pinned' }),
  superseded_by: z
    .string()
    .nullable()
    .meta({ description: 'The newer memory that replaced this one (hidden unless pinned); null: none' }),
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
