import { z } from 'zod';
import { isId } from '../ids.js';
import { PROMPT_STATUSES, variableSchemaSchema } from '../prompts/prompt-schemas.js';

/**
 * The export bundle: JSON Lines, one object per line, in this order — a header, then prompts (each with
 * its versions), memories, artifacts (each followed by its kept versions, one line each so that no line
 * holds more than one document), and an `end` line with the counts (its absence means a truncated file).
 * Content rules are those of the create endpoints; these schemas fix the shape of each line.
 */
export const BUNDLE_FORMAT = 'cairn-export';
export const BUNDLE_VERSION = 1;

const timestamp = z.iso.datetime({ message: 'Must be an ISO 8601 UTC timestamp' });
const versionNumber = z.number().int().min(1);

export const headerLine = z.object({
  type: z.literal('header'),
  format: z.literal(BUNDLE_FORMAT, { message: `Not a Cairn export (format must be "${BUNDLE_FORMAT}")` }),
  version: z.literal(BUNDLE_VERSION, { message: `Unsupported bundle version (this server reads ${BUNDLE_VERSION})` }),
  exported_at: timestamp,
});

export const promptVersionLine = z.object({
  version: versionNumber,
  title: z.string(),
  description: z.string(),
  content: z.string(),
  labels: z.array(z.string()),
  variable_schema: variableSchemaSchema,
  commit_message: z.string().nullable(),
  created_at: timestamp,
});
export type BundlePromptVersion = z.infer<typeof promptVersionLine>;

export const promptLine = z.object({
  type: z.literal('prompt'),
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  content: z.string(),
  status: z.enum(PROMPT_STATUSES),
  available_in_mcp: z.boolean(),
  labels: z.array(z.string()),
  variable_schema: variableSchemaSchema,
  version: versionNumber,
  created_at: timestamp,
  updated_at: timestamp,
  versions: z.array(promptVersionLine).max(10_000),
});
export type BundlePrompt = z.infer<typeof promptLine>;

export const memoryLine = z.object({
  type: z.literal('memory'),
  memory_id: z.string().refine((value) => isId('mem', value), 'Not a memory id'),
  text: z.string(),
  project_name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: timestamp,
  updated_at: timestamp,
  last_accessed_at: timestamp.nullable(),
});
export type BundleMemory = z.infer<typeof memoryLine>;

export const artifactLine = z.object({
  type: z.literal('artifact'),
  id: z.string(),
  project: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  content: z.string(),
  content_type: z.string(),
  labels: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  version: versionNumber,
  size_bytes: z.number().int().optional(),
  sha256: z.string().optional(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type BundleArtifact = z.infer<typeof artifactLine>;

/** A kept (previous) version of the artifact on the line before it. */
export const artifactVersionLine = z.object({
  type: z.literal('artifact_version'),
  project: z.string(),
  slug: z.string(),
  version: versionNumber,
  content: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int().optional(),
  sha256: z.string().optional(),
  created_at: timestamp,
});
export type BundleArtifactVersion = z.infer<typeof artifactVersionLine>;

const counts = z.object({
  prompts: z.number().int().min(0),
  memories: z.number().int().min(0),
  artifacts: z.number().int().min(0),
});
export type BundleCounts = z.infer<typeof counts>;

export const endLine = z.object({ type: z.literal('end'), counts });

export const bundleLine = z.discriminatedUnion('type', [
  headerLine,
  promptLine,
  memoryLine,
  artifactLine,
  artifactVersionLine,
  endLine,
]);
export type BundleLine = z.infer<typeof bundleLine>;

export const importQuery = z.object({
  dry_run: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => value === 'true' || value === '1')
    .meta({ description: 'Report what would change without changing anything' }),
});

export const importResultSchema = z.object({
  dry_run: z.boolean(),
  created: counts,
  updated: counts,
  unchanged: counts,
});
export type ImportResult = z.infer<typeof importResultSchema>;
