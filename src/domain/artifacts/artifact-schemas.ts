import { z } from 'zod';
import {
  ARTIFACT_CONTENT_HARD_MAX,
  ARTIFACT_DESCRIPTION_MAX,
  ARTIFACT_TITLE_MAX,
  CONTENT_TYPE_MAX,
} from '../../contract/index.js';
import { boundedString } from '../common/bounds.js';
import {
  descriptionSchema,
  labelFilterParam,
  labelsSchema,
  metadataObjectSchema,
  nextCursorSchema,
  projectNameSchema,
  slugSchema,
  titleSchema,
  truncatedSchema,
} from '../common/field-schemas.js';
import { budgetedListQuery, checkCursorWithPage, paginationQuery } from '../common/pagination.js';
import { searchSchema } from '../common/search.js';
import { withUnknownFieldMessages } from '../common/validation.js';

/** `type/subtype` with optional parameters, e.g. `text/markdown; charset=utf-8`. */
const MIME =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/;

export const contentTypeSchema = boundedString(
  CONTENT_TYPE_MAX,
  `Content type must be at most ${CONTENT_TYPE_MAX} characters`,
)
  .trim()
  .regex(MIME, 'Content type must be a MIME type such as text/markdown')
  .transform((value) => value.toLowerCase());

const title = titleSchema(ARTIFACT_TITLE_MAX);
const description = descriptionSchema(ARTIFACT_DESCRIPTION_MAX);

/**
 * The configured size (ARTIFACT_MAX_BYTES, in UTF-8 bytes) is checked by the service: a 413, not a 400.
 * The schema holds the largest value that setting may take, so no string is unbounded.
 */
export { ARTIFACT_CONTENT_HARD_MAX };

const content = boundedString(ARTIFACT_CONTENT_HARD_MAX, 'Content is too large');

const metadata = metadataObjectSchema();

/** The bounded fields other surfaces reuse (the MCP save tool). */
export const artifactFields = { title, description, content };

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

export const listArtifactsQuery = z
  .object({
    project: projectNameSchema.optional(),
    label: labelFilterParam(),
    content_type: boundedString(
      CONTENT_TYPE_MAX,
      `Content type must be at most ${CONTENT_TYPE_MAX} characters`,
    ).optional(),
    search: searchSchema.optional(),
    ...budgetedListQuery,
  })
  .superRefine(checkCursorWithPage);
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

/** A list item: the summary, or its preview in an answer with a budget (`truncated`). */
export const artifactListItemSchema = artifactSummarySchema.extend({ truncated: truncatedSchema });
export type ArtifactListItem = z.infer<typeof artifactListItemSchema>;

export const artifactListSchema = z.object({
  artifacts: z.array(artifactListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
  next_cursor: nextCursorSchema,
});
export type ArtifactList = z.infer<typeof artifactListSchema>;

/** `svc_list_artifacts`'s answer: the list without page numbers. */
export const artifactIndexPageSchema = z.object({
  artifacts: z.array(artifactListItemSchema),
  total: z.number().int(),
  next_cursor: nextCursorSchema,
});
export type ArtifactIndexPage = z.infer<typeof artifactIndexPageSchema>;

export const artifactWrittenSchema = z.object({
  id: z.string(),
  project: z.string(),
  slug: z.string(),
  title: z.string(),
  version: z.number().int(),
  message: z.string(),
});
export type ArtifactWritten = z.infer<typeof artifactWrittenSchema>;

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
