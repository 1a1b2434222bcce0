import { z } from 'zod';
import { paginationQuery, repeatableParam } from '../pagination.js';
import { SLUG_MAX, SLUG_PATTERN } from '../slug.js';
import { withUnknownFieldMessages } from '../validation.js';

export const PROMPT_STATUSES = ['draft', 'published'] as const;
export type PromptStatus = (typeof PROMPT_STATUSES)[number];

export const MAX_LABELS = 10;

export const slugSchema = z
  .string()
  .min(1, 'Slug must not be empty')
  .max(SLUG_MAX, `Slug must be at most ${SLUG_MAX} characters`)
  .regex(SLUG_PATTERN, 'Slug must be lowercase letters and digits separated by single hyphens');

const title = z.string().trim().min(1, 'Title is required').max(200, 'Title must be at most 200 characters');
const content = z
  .string()
  .max(100_000, 'Content must be at most 100,000 characters')
  .refine((value) => value.trim().length > 0, 'Content is required');
const description = z
  .string()
  .trim()
  .max(200, 'Description must be at most 200 characters')
  .nullable()
  .transform((value) => value ?? '');

/** Labels: at most 10, each 1–50 characters after trimming; duplicates dropped, order kept. */
export const labelsSchema = z
  .array(z.string().trim().min(1, 'Label must not be empty').max(50, 'Label must be at most 50 characters'))
  .max(MAX_LABELS, `At most ${MAX_LABELS} labels`)
  .transform((labels) => [...new Set(labels)]);

export const promptStatusSchema = z.enum(PROMPT_STATUSES);

export const createPromptBody = z.strictObject({
  title,
  content,
  description: description.optional().transform((value) => value ?? ''),
  status: promptStatusSchema.default('draft'),
  available_in_mcp: z.boolean().default(false),
  labels: labelsSchema.default([]),
  slug: slugSchema.optional(),
});
export type CreatePromptInput = z.input<typeof createPromptBody>;

const READ_ONLY = 'Read-only field';

/** Partial update. The slug and read-only fields are refused with a message that says why. */
export const updatePromptBody = withUnknownFieldMessages(
  z.strictObject({
    title: title.optional(),
    content: content.optional(),
    description: description.optional(),
    status: promptStatusSchema.optional(),
    available_in_mcp: z.boolean().optional(),
    labels: labelsSchema.optional(),
  }),
  {
    slug: 'The slug cannot be changed',
    id: READ_ONLY,
    created_at: READ_ONLY,
    updated_at: READ_ONLY,
    variables: READ_ONLY,
    references: READ_ONLY,
  },
);
export type UpdatePromptInput = z.input<typeof updatePromptBody>;

export const listPromptsQuery = z.object({
  status: promptStatusSchema.optional(),
  label: repeatableParam(z.string()),
  search: z.string().max(1000, 'Search must be at most 1,000 characters').optional(),
  ...paginationQuery,
});
export type ListPromptsQuery = z.output<typeof listPromptsQuery>;

const timestamps = {
  created_at: z.string().meta({ format: 'date-time' }),
  updated_at: z.string().meta({ format: 'date-time' }),
};

export const promptSummarySchema = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  status: promptStatusSchema,
  available_in_mcp: z.boolean(),
  labels: z.array(z.string()),
  ...timestamps,
});
export type PromptSummary = z.infer<typeof promptSummarySchema>;

export const promptSchema = promptSummarySchema.extend({
  content: z.string(),
  variables: z.array(z.string()),
  references: z.array(z.string()),
});
export type Prompt = z.infer<typeof promptSchema>;

export const promptListSchema = z.object({
  prompts: z.array(promptSummarySchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const promptCreatedSchema = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  message: z.string(),
});
export const promptUpdatedSchema = z.object({ id: z.string(), slug: z.string(), message: z.string() });
