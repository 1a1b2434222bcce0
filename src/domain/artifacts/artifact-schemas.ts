import { z } from 'zod';
import { jsonDepth } from '../json.js';
import { METADATA_MAX_BYTES, METADATA_MAX_DEPTH, projectNameSchema } from '../memories/memory-schemas.js';
import { paginationQuery, repeatableParam } from '../pagination.js';
import { labelsSchema, slugSchema } from '../prompts/prompt-schemas.js';
import { withUnknownFieldMessages } from '../validation.js';

/** `type/subtype` with optional parameters, e.g. `text/markdown; charset=utf-8`. */
const MIME =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/;

export const contentTypeSchema = z
  .string()
  .trim()
  .max(255)
  .regex(MIME, 'Content type must be a MIME type such as text/markdown')
  .transform((value) => value.toLowerCase());

const title = z.string().trim().min(1, 'Title is required').max(200, 'Title must be at most 200 characters');
const description = z
  .string()
  .trim()
  .max(500, 'Description must be at most 500 characters')
  .nullable()
  .transform((value) => value ?? '');
/** Size is checked by the service against the configured limit (a 413, not a 400). */
const content = z.string();

const metadata = z
  .record(z.string(), z.unknown(), { error: 'Metadata must be a JSON object' })
  .superRefine((value, ctx) => {
    if (jsonDepth(value, METADATA_MAX_DEPTH) > METADATA_MAX_DEPTH) {
      ctx.addIssue({ code: 'custom', message: `Metadata is nested more than ${METADATA_MAX_DEPTH} levels deep` });
      return;
    }
    if (Buffer.byteLength(JSON.stringify(value)) > METADATA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: 'Metadata must be at most 16 KiB as JSON' });
    }
  });

export const createArtifactBody = z.strictObject({
  project: projectNameSchema,
  title,
  content,
  slug: slugSchema.optional(),
  description: description.optional().transform((value) => value ?? ''),
  content_type: contentTypeSchema.default('text/markdown'),
  labels: labelsSchema.default([]),
  metadata: metadata.default({}),
});
export type CreateArtifactInput = z.input<typeof createArtifactBody>;

const READ_ONLY = 'Read-only field';
const ADDRESS = 'The project and slug cannot be changed';

export const updateArtifactBody = withUnknownFieldMessages(
  z.strictObject({
    title: title.optional(),
    description: description.optional(),
    content: content.optional(),
    content_type: contentTypeSchema.optional(),
    labels: labelsSchema.optional(),
    metadata: metadata.optional(),
  }),
  {
    project: ADDRESS,
    slug: ADDRESS,
    id: READ_ONLY,
    version: READ_ONLY,
    size_bytes: READ_ONLY,
    sha256: READ_ONLY,
    created_at: READ_ONLY,
    updated_at: READ_ONLY,
  },
);
export type UpdateArtifactInput = z.input<typeof updateArtifactBody>;

export const listArtifactsQuery = z.object({
  project: projectNameSchema.optional(),
  label: repeatableParam(z.string().max(50)),
  content_type: z.string().max(255).optional(),
  search: z.string().max(1000, 'Search must be at most 1,000 characters').optional(),
  ...paginationQuery,
});
export type ListArtifactsQuery = z.output<typeof listArtifactsQuery>;

export const listVersionsQuery = z.object({ ...paginationQuery });

export const artifactSummarySchema = z.object({
  id: z.string(),
  project: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  content_type: z.string(),
  labels: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  size_bytes: z.number().int(),
  sha256: z.string(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ArtifactSummary = z.infer<typeof artifactSummarySchema>;

export const artifactSchema = artifactSummarySchema.extend({ content: z.string() });
export type Artifact = z.infer<typeof artifactSchema>;

export const artifactListSchema = z.object({
  artifacts: z.array(artifactSummarySchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const artifactWrittenSchema = z.object({
  id: z.string(),
  project: z.string(),
  slug: z.string(),
  title: z.string(),
  version: z.number().int(),
  message: z.string(),
});

export const versionSummarySchema = z.object({
  version: z.number().int(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  content_type: z.string(),
  created_at: z.string(),
  current: z.boolean(),
});
export type VersionSummary = z.infer<typeof versionSummarySchema>;

export const versionSchema = versionSummarySchema.extend({ content: z.string() });
export type ArtifactVersion = z.infer<typeof versionSchema>;

export const versionListSchema = z.object({
  versions: z.array(versionSummarySchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
