import { z } from 'zod';
import {
  LABEL_MAX,
  MAX_LABELS,
  METADATA_KEY_MAX,
  METADATA_MAX_BYTES,
  METADATA_MAX_DEPTH,
} from '../../contract/index.js';
import { boundedArray, boundedString, patternString } from './bounds.js';
import { jsonDepth } from './json.js';
import { repeatableParam } from './pagination.js';
import { PROJECT_MAX, PROJECT_MESSAGES, PROJECT_PATTERN } from './project.js';
import { SLUG_MAX, SLUG_PATTERN } from './slug.js';

/**
 * Field schemas more than one content kind uses (prompts, artifacts, memories, bundles, MCP tools). They
 * live here, not in one area's folder, so no area borrows another's schemas and a rule changed here changes
 * on every surface at once.
 */

export const slugSchema = patternString(
  SLUG_MAX,
  `Slug must be at most ${SLUG_MAX} characters`,
  SLUG_PATTERN,
  'Slug must be lowercase letters and digits separated by single hyphens',
).min(1, 'Slug must not be empty');

export const projectNameSchema = patternString(
  PROJECT_MAX,
  PROJECT_MESSAGES.length,
  PROJECT_PATTERN,
  PROJECT_MESSAGES.pattern,
);

/** A title: at most `max` characters as sent (checked first), then trimmed and required. */
export const titleSchema = (max: number) =>
  boundedString(max, `Title must be at most ${max} characters`).trim().min(1, 'Title is required');

/** An optional description: at most `max` characters as sent, trimmed; null reads as empty. */
export const descriptionSchema = (max: number) =>
  boundedString(max, `Description must be at most ${max} characters`)
    .trim()
    .nullable()
    .transform((value) => value ?? '');

export { LABEL_MAX, MAX_LABELS, METADATA_KEY_MAX, METADATA_MAX_BYTES, METADATA_MAX_DEPTH };

export const labelSchema = boundedString(LABEL_MAX, `Label must be at most ${LABEL_MAX} characters`)
  .trim()
  .min(1, 'Label must not be empty');

/** Labels: at most 10, each 1–50 characters after trimming; duplicates dropped, order kept. */
export const labelsSchema = boundedArray(labelSchema, MAX_LABELS, `At most ${MAX_LABELS} labels`).transform(
  (labels) => [...new Set(labels)],
);

/**
 * The `label` list filter (`?label=a&label=b`): bounded as sent; the service trims it with
 * `normaliseLabelFilter` (an empty value filters nothing, where a label in a body is refused).
 */
export const labelFilterParam = () =>
  repeatableParam(boundedString(LABEL_MAX, `Label must be at most ${LABEL_MAX} characters`), MAX_LABELS, 'label');

/** A label filter as the stores take it: trimmed, empty values dropped, duplicates dropped, order kept. */
export const normaliseLabelFilter = (labels: readonly string[]): string[] => [
  ...new Set(labels.map((label) => label.trim()).filter(Boolean)),
];

/** Free-form JSON object keys: bounded like every other string (the whole object is at most 16 KiB). */
export const metadataKeySchema = boundedString(METADATA_KEY_MAX, `Keys must be at most ${METADATA_KEY_MAX} characters`);

/** A free-form JSON object with bounded keys; `message` when the value is not an object. */
export const jsonObjectSchema = (message: string) => z.record(metadataKeySchema, z.unknown(), { error: message });

/** The metadata depth rule alone (a merge patch is only depth-checked: its merged size is the service's). */
export function checkMetadataDepth(value: unknown, ctx: z.RefinementCtx): boolean {
  if (jsonDepth(value, METADATA_MAX_DEPTH) <= METADATA_MAX_DEPTH) return true;
  ctx.addIssue({ code: 'custom', message: `Metadata is nested more than ${METADATA_MAX_DEPTH} levels deep` });
  return false;
}

/**
 * Metadata (memories and artifacts): a JSON object at most 32 levels deep and 16 KiB as JSON. Depth is
 * measured without recursion first, so hostile input gets a 400, never a stack overflow.
 */
export const metadataObjectSchema = () =>
  jsonObjectSchema('Metadata must be a JSON object').superRefine((value, ctx) => {
    if (!checkMetadataDepth(value, ctx)) return;
    if (Buffer.byteLength(JSON.stringify(value)) > METADATA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: 'Metadata must be at most 16 KiB as JSON' });
    }
  });

/** Marks a preview in a budgeted answer: its long parts are cut; read the item itself for the whole. */
export const truncatedSchema = z.literal(true).optional().meta({
  description:
    'Present (true) on a preview: an answer with a budget cut this item\'s long parts (texts end with "…"); read the item by its id for the whole',
});

/** Where a list continues: the `cursor` of the next page, or null at the end. */
export const nextCursorSchema = z.string().nullable().meta({
  description:
    'Pass as `cursor` to continue exactly after the last item shown (also after a page the budget cut short); null at the end',
});
