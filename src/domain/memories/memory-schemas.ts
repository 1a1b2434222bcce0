import { z } from 'zod';
import { jsonDepth } from '../json.js';
import { paginationQuery, repeatableParam } from '../pagination.js';
import { withUnknownFieldMessages } from '../validation.js';
import { PROJECT_MAX, PROJECT_PATTERN } from './project.js';

export const PRIORITIES = ['high', 'medium', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const METADATA_MAX_BYTES = 16 * 1024;
export const METADATA_MAX_DEPTH = 32;
export const MAX_TAGS = 20;
export const TEXT_MAX = 50_000;

export const projectNameSchema = z
  .string()
  .max(PROJECT_MAX, `Project name must be at most ${PROJECT_MAX} characters`)
  .regex(PROJECT_PATTERN, 'Project name must be segments of letters, digits, ., _ or - separated by single slashes');

const text = z
  .string()
  .max(TEXT_MAX, 'Text must be at most 50,000 characters')
  .refine((value) => value.trim().length > 0, 'Text is required');

export const tagSchema = z.string().trim().min(1, 'Tag must not be empty').max(50, 'Tag must be at most 50 characters');

/**
 * Known metadata keys are checked; other keys are free. Size and depth are measured without recursion so
 * hostile input gets a 400, never a stack overflow.
 */
const knownMetadata = z.looseObject({
  category: z
    .string()
    .trim()
    .min(1, 'Category must not be empty')
    .max(100, 'Category must be at most 100 characters')
    .optional(),
  priority: z.enum(PRIORITIES, { error: 'Priority must be high, medium or low' }).optional(),
  tags: z
    .array(tagSchema)
    .max(MAX_TAGS, `At most ${MAX_TAGS} tags`)
    .transform((tags) => [...new Set(tags)])
    .optional(),
});

const jsonObject = (message: string) => z.record(z.string(), z.unknown(), { error: message });

export const metadataSchema = jsonObject('Metadata must be a JSON object')
  .superRefine((value, ctx) => {
    if (jsonDepth(value, METADATA_MAX_DEPTH) > METADATA_MAX_DEPTH) {
      ctx.addIssue({ code: 'custom', message: `Metadata is nested more than ${METADATA_MAX_DEPTH} levels deep` });
      return;
    }
    if (Buffer.byteLength(JSON.stringify(value)) > METADATA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: 'Metadata must be at most 16 KiB as JSON' });
    }
  })
  .pipe(knownMetadata)
  .meta({
    description:
      'Free-form object. Known keys: category (string ≤ 100), priority (high|medium|low), tags (≤ 20 strings of 1–50). At most 16 KiB as JSON.',
  });
export type Metadata = z.output<typeof metadataSchema>;

export const createMemoryBody = z.strictObject({
  text,
  project_name: projectNameSchema.nullable().optional(),
  metadata: metadataSchema.optional(),
});
export type CreateMemoryInput = z.input<typeof createMemoryBody>;

const READ_ONLY = 'Read-only field';

/** Partial update; `metadata` is a JSON Merge Patch (RFC 7396) applied to the stored metadata. */
export const updateMemoryBody = withUnknownFieldMessages(
  z.strictObject({
    text: text.optional(),
    project_name: projectNameSchema.nullable().optional(),
    metadata: jsonObject('Metadata must be a JSON object (a merge patch)')
      .superRefine((value, ctx) => {
        if (jsonDepth(value, METADATA_MAX_DEPTH) > METADATA_MAX_DEPTH) {
          ctx.addIssue({ code: 'custom', message: `Metadata is nested more than ${METADATA_MAX_DEPTH} levels deep` });
        }
      })
      .optional()
      .meta({ description: 'JSON Merge Patch: given keys replace, null removes a key' }),
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

export const listMemoriesQuery = z.object({
  project_name: projectNameSchema.optional(),
  category: z.string().max(100).optional(),
  priority: z.enum(PRIORITIES, { error: 'Priority must be high, medium or low' }).optional(),
  tag: repeatableParam(z.string().max(50)),
  search: z.string().max(1000, 'Search must be at most 1,000 characters').optional(),
  explain: booleanParam.meta({ description: 'With search: add the per-part breakdown of each score' }),
  ...paginationQuery,
});
export type ListMemoriesQuery = z.output<typeof listMemoriesQuery>;

const scorePartsSchema = z.object({
  keyword: z.number(),
  project: z.number(),
  priority: z.number(),
  recency: z.number(),
  weights: z.object({ keyword: z.number(), project: z.number(), priority: z.number(), recency: z.number() }),
  bm25: z.number(),
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
});
export type RankedMemory = z.infer<typeof rankedMemorySchema>;
export type ScoreParts = z.infer<typeof scorePartsSchema>;

export const memoryListSchema = z.object({
  memories: z.array(rankedMemorySchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const memoryWithMessageSchema = memorySchema.extend({ message: z.string() });
