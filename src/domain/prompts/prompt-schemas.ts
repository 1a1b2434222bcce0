import { z } from 'zod';
import {
  COMMIT_MESSAGE_MAX,
  MAX_SCHEMA_VARIABLES,
  PROMPT_CONTENT_MAX,
  PROMPT_DESCRIPTION_MAX,
  PROMPT_STATUSES,
  PROMPT_TITLE_MAX,
  SLUG_MAX,
  SLUG_PATTERN,
  VARIABLE_DEFAULT_MAX,
  VARIABLE_DESCRIPTION_MAX,
  VARIABLE_ENUM_MAX,
  VARIABLE_ENUM_VALUE_MAX,
  VARIABLE_NAME_MAX,
  VARIABLE_VALUE_MAX,
} from '../../contract/index.js';
import { boundedArray, boundedString, patternString } from '../common/bounds.js';
import {
  descriptionSchema,
  labelFilterParam,
  labelsSchema,
  nextCursorSchema,
  slugSchema,
  titleSchema,
  truncatedSchema,
} from '../common/field-schemas.js';
import { budgetedListQuery, checkCursorWithPage, paginationQuery } from '../common/pagination.js';
import { searchSchema } from '../common/search.js';
import { withUnknownFieldMessages } from '../common/validation.js';
import type { VariableSchema } from './variables.js';

export type { PromptStatus } from '../../contract/index.js';
// Re-exported for callers that imported them from here; their home is field-schemas.ts.
export { LABEL_MAX, labelSchema, labelsSchema, MAX_LABELS, slugSchema } from '../common/field-schemas.js';
export { MAX_SCHEMA_VARIABLES, PROMPT_STATUSES };

export const TITLE_MAX = PROMPT_TITLE_MAX;
export const CONTENT_MAX = PROMPT_CONTENT_MAX;

const title = titleSchema(PROMPT_TITLE_MAX);
const content = boundedString(PROMPT_CONTENT_MAX, 'Content must be at most 100,000 characters').refine(
  (value) => value.trim().length > 0,
  'Content is required',
);
const description = descriptionSchema(PROMPT_DESCRIPTION_MAX);

export const promptStatusSchema = z.enum(PROMPT_STATUSES);

/** An environment's name (`production`, `staging`, …): the slug rules. */
export const environmentNameSchema = patternString(
  SLUG_MAX,
  `Environment names are at most ${SLUG_MAX} characters`,
  SLUG_PATTERN,
  'Environment names are lowercase letters and digits separated by single hyphens',
).min(1, 'Environment name must not be empty');

const variableSpecSchema = z
  .strictObject({
    description: boundedString(
      VARIABLE_DESCRIPTION_MAX,
      `Description must be at most ${VARIABLE_DESCRIPTION_MAX} characters`,
    )
      .trim()
      .optional(),
    required: z.boolean().optional().meta({ description: 'Default true' }),
    default: boundedString(VARIABLE_DEFAULT_MAX, 'Default must be at most 10,000 characters').optional(),
    enum: boundedArray(
      boundedString(VARIABLE_ENUM_VALUE_MAX, `Each value must be at most ${VARIABLE_ENUM_VALUE_MAX} characters`),
      VARIABLE_ENUM_MAX,
      `enum must list at most ${VARIABLE_ENUM_MAX} values`,
    )
      .min(1, 'enum must list at least one value')
      .refine((values) => new Set(values).size === values.length, 'enum values must be distinct')
      .optional(),
  })
  .refine((spec) => spec.default === undefined || !spec.enum || spec.enum.includes(spec.default), {
    message: 'The default must be one of the enum values',
    path: ['default'],
  });

/** A variable's name as a key: bounded, then the name rule. */
const VARIABLE_NAME = patternString(
  VARIABLE_NAME_MAX,
  `Variable names are at most ${VARIABLE_NAME_MAX} characters`,
  /^[A-Za-z_][A-Za-z0-9_]*$/,
  'Variable names are letters, digits and _, not starting with a digit',
);

/** `{ variable: {description?, required? (default true), default?, enum?} }`, for the content's own variables. */
export const variableSchemaSchema: z.ZodType<VariableSchema, VariableSchema> = z
  .record(VARIABLE_NAME, variableSpecSchema)
  .refine((schema) => Object.keys(schema).length <= MAX_SCHEMA_VARIABLES, {
    message: `At most ${MAX_SCHEMA_VARIABLES} variables`,
  })
  .meta({
    description:
      'Typed variables: for each variable of the content, `{description?, required? (default true), default?, enum?}`.',
  }) as z.ZodType<VariableSchema, VariableSchema>;

const commitMessage = boundedString(
  COMMIT_MESSAGE_MAX,
  `Commit message must be at most ${COMMIT_MESSAGE_MAX} characters`,
)
  .trim()
  .nullable()
  .transform((value) => (value ? value : null));

export const createPromptBody = z.strictObject({
  title,
  content,
  description: description.optional().transform((value) => value ?? ''),
  status: promptStatusSchema.default('draft'),
  available_in_mcp: z.boolean().default(false),
  labels: labelsSchema.default([]),
  slug: slugSchema.optional(),
  variable_schema: variableSchemaSchema.nullable().optional(),
  commit_message: commitMessage.optional(),
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
    variable_schema: variableSchemaSchema.nullable().optional(),
    commit_message: commitMessage.optional(),
  }),
  {
    slug: 'The slug cannot be changed',
    version: 'Read-only field (restore an old version with POST …/restore)',
    broken_references: READ_ONLY,
    id: READ_ONLY,
    created_at: READ_ONLY,
    updated_at: READ_ONLY,
    variables: READ_ONLY,
    references: READ_ONLY,
  },
);
export type UpdatePromptInput = z.input<typeof updatePromptBody>;

export const listPromptsQuery = z
  .object({
    full: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .transform((value) => value === 'true' || value === '1')
      .meta({
        description:
          'Return whole prompts (content, variables, references, variable_schema, version) rather than summaries — one request for tools that sync every prompt',
      }),
    status: promptStatusSchema.optional(),
    label: labelFilterParam(),
    search: searchSchema.optional(),
    environment: environmentNameSchema.optional().meta({
      description:
        'Only prompts with this environment, each shown as the version it points to (filters still apply to the current version)',
    }),
    ...budgetedListQuery,
  })
  .superRefine(checkCursorWithPage);
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
  variable_schema: variableSchemaSchema,
  version: z.number().int().meta({ description: 'The current version; also the ETag' }),
  broken_references: z
    .array(z.string())
    .meta({ description: 'References whose target prompt does not exist (as `@slug`)' }),
  environment: z
    .string()
    .optional()
    .meta({ description: 'The environment this answer was served through; `version` is the one it points to' }),
});
export type Prompt = z.infer<typeof promptSchema>;

/** `?environment=` on a prompt read or render: the version that environment points to. */
export const environmentQuery = z.object({
  environment: environmentNameSchema.optional().meta({
    description: 'Serve the version this environment points to (404 when the prompt has no such environment)',
  }),
});

export const promptEnvironmentSchema = z.object({
  name: z.string(),
  version: z.number().int(),
  marketplace: z.boolean().meta({ description: 'Marketplace-only keys see the prompt through this pointer alone' }),
  updated_at: z.string().meta({ format: 'date-time' }),
});
export type PromptEnvironment = z.infer<typeof promptEnvironmentSchema>;

export const promptEnvironmentListSchema = z.object({
  environments: z.array(promptEnvironmentSchema),
  total: z.number().int(),
});
export type PromptEnvironmentList = z.infer<typeof promptEnvironmentListSchema>;

export const promptEnvironmentSetSchema = promptEnvironmentSchema.extend({ message: z.string() });
export type PromptEnvironmentSet = z.infer<typeof promptEnvironmentSetSchema>;

export const setEnvironmentBody = z.strictObject({
  version: z.number().int('version must be an integer').min(1, 'version must be at least 1'),
  marketplace: z.boolean().optional().meta({
    description:
      'Make this the pointer marketplace-only keys see the prompt through (another pointer loses the mark); default false',
  }),
});
export type SetPromptEnvironmentInput = z.input<typeof setEnvironmentBody>;

/** A list item: a summary, or with `full=true` the whole prompt but `broken_references`. */
export const promptListItemSchema = promptSummarySchema.extend({
  content: z.string().optional(),
  variables: z.array(z.string()).optional(),
  references: z.array(z.string()).optional(),
  variable_schema: variableSchemaSchema.optional(),
  version: z.number().int().optional(),
  truncated: truncatedSchema,
});

export type PromptListItem = z.infer<typeof promptListItemSchema>;

export const promptListSchema = z.object({
  prompts: z.array(promptListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
  next_cursor: nextCursorSchema.optional(),
});
export type PromptList = z.infer<typeof promptListSchema>;

/** A prompt's variable as MCP clients show it (an MCP prompt argument). */
export const promptArgumentSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  required: z.boolean(),
});

/** `svc_list_prompts`: a prompt available to AI tools, with the arguments `svc_get_prompt` takes. */
export const promptIndexItemSchema = promptSummarySchema.extend({
  variables: z.array(promptArgumentSchema).describe('What svc_get_prompt accepts in `variables`'),
  truncated: truncatedSchema,
});
export type PromptIndexItem = z.infer<typeof promptIndexItemSchema>;

export const promptIndexPageSchema = z.object({
  prompts: z.array(promptIndexItemSchema),
  total: z.number().int(),
  next_cursor: nextCursorSchema,
});
export type PromptIndexPage = z.infer<typeof promptIndexPageSchema>;

export const promptCreatedSchema = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  version: z.number().int(),
  message: z.string(),
});
export type PromptCreated = z.infer<typeof promptCreatedSchema>;
export const promptUpdatedSchema = z.object({
  id: z.string(),
  slug: z.string(),
  version: z.number().int(),
  message: z.string(),
});
export type PromptUpdated = z.infer<typeof promptUpdatedSchema>;

export const promptVersionSummarySchema = z.object({
  version: z.number().int(),
  title: z.string(),
  commit_message: z.string().nullable(),
  created_at: z.string().meta({ format: 'date-time' }),
});
export type PromptVersionSummary = z.infer<typeof promptVersionSummarySchema>;

export const promptVersionSchema = promptVersionSummarySchema.extend({
  description: z.string(),
  content: z.string(),
  labels: z.array(z.string()),
  variable_schema: variableSchemaSchema,
});
export type PromptVersion = z.infer<typeof promptVersionSchema>;

export const promptVersionListSchema = z.object({
  versions: z.array(promptVersionSummarySchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type PromptVersionList = z.infer<typeof promptVersionListSchema>;

export const listVersionsQuery = z.object({ ...paginationQuery });
export const referencedByQuery = z.object({ ...paginationQuery });

export const restorePromptBody = z.strictObject({
  version: z.number().int('version must be an integer').min(1, 'version must be at least 1'),
  commit_message: commitMessage.optional(),
});
export type RestorePromptInput = z.input<typeof restorePromptBody>;

const variableValue = z
  .union([boundedString(VARIABLE_VALUE_MAX, 'A value must be at most 100,000 characters'), z.number(), z.boolean()])
  .transform(String);

/** Values by variable name, as REST render and MCP (`svc_get_prompt`, `prompts/get`) take them. */
export const renderVariablesSchema = z
  .record(boundedString(VARIABLE_NAME_MAX, `Variable names are at most ${VARIABLE_NAME_MAX} characters`), variableValue)
  .refine((values) => Object.keys(values).length <= MAX_SCHEMA_VARIABLES, {
    message: `At most ${MAX_SCHEMA_VARIABLES} variables`,
  });

export const renderPromptBody = z.strictObject({
  variables: renderVariablesSchema
    .default({})
    .meta({ description: 'Values by variable name (numbers and booleans are taken as text)' }),
  resolve: z.boolean().default(true).meta({ description: 'Expand `@references` (default true)' }),
  strict: z.boolean().default(true).meta({
    description: 'Refuse missing required and unknown variables (default true); otherwise missing ones stay as written',
  }),
});
export type RenderPromptInput = z.input<typeof renderPromptBody>;

export const renderResultSchema = z.object({
  content: z.string(),
  variables_used: z.array(z.string()),
  variables_missing: z.array(z.string()),
  references_resolved: z.array(z.string()),
});
export type RenderResult = z.infer<typeof renderResultSchema>;
