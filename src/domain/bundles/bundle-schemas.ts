import { z } from 'zod';
import { formatCount } from '../common/format.js';
import { isId } from '../common/ids.js';
import { PROMPT_STATUSES } from '../prompts/prompt-schemas.js';

/**
 * The export bundle: JSON Lines, one object per line, in this order — a header, then prompts (each with
 * its versions), memories and artifacts (each followed by its kept versions, one line each so that no
 * line holds more than one document), and an `end` line with the counts (its absence means a truncated file).
 * Content rules are those of the create endpoints; these schemas fix the shape of each line.
 */
export const BUNDLE_FORMAT = 'cairn-export';
export const BUNDLE_VERSION = 1;

/**
 * Shape bounds: every string and array of a line is bounded before anything else looks at it (`abort`: no
 * pattern, transform or later rule runs on an oversized value). They are generous — the content rules
 * (the create endpoints' schemas, run on each item after its shape) give the precise limits and messages —
 * and only keep hostile lines from reaching those rules at any size.
 */
const text = (max: number) =>
  z.string().max(max, { error: `Must be at most ${formatCount(max)} characters`, abort: true });
const list = <T extends z.ZodType>(item: T, max: number) =>
  z.array(item).max(max, { error: `At most ${formatCount(max)} entries`, abort: true });
/** A JSON object of bounded keys; its values are checked by the content rules (metadata size and depth). */
const object = (maxKeys: number) =>
  z
    .record(text(1_000), z.unknown())
    .refine((value) => Object.keys(value).length <= maxKeys, `At most ${formatCount(maxKeys)} keys`);

const ID_MAX = 100;
const SLUG_SHAPE_MAX = 1_000;
const TITLE_SHAPE_MAX = 10_000;
const PROJECT_SHAPE_MAX = 10_000;
/** Prompt content is at most 100,000 characters (the rule); this only stops a runaway string first. */
const PROMPT_CONTENT_SHAPE_MAX = 1_000_000;
/** Artifact content: the configured ARTIFACT_MAX_BYTES (at most 1 GiB) is the rule, checked per item. */
const ARTIFACT_CONTENT_SHAPE_MAX = 1024 * 1024 * 1024;
const MEMORY_TEXT_SHAPE_MAX = 1_000_000;
const LABELS_SHAPE_MAX = 1_000;
const VARIABLES_SHAPE_MAX = 1_000;
const METADATA_KEYS_SHAPE_MAX = 20_000;
export const MAX_PROMPT_VERSIONS = 10_000;

const timestamp = text(64).pipe(z.iso.datetime({ message: 'Must be an ISO 8601 UTC timestamp' }));
const versionNumber = z.number().int().min(1);
const labels = list(text(TITLE_SHAPE_MAX), LABELS_SHAPE_MAX);
const variableSchema = object(VARIABLES_SHAPE_MAX);
const sha256 = text(64).optional();

export const headerLine = z.object({
  type: z.literal('header'),
  format: z.literal(BUNDLE_FORMAT, { message: `Not a Cairn export (format must be "${BUNDLE_FORMAT}")` }),
  version: z.literal(BUNDLE_VERSION, { message: `Unsupported bundle version (this server reads ${BUNDLE_VERSION})` }),
  exported_at: timestamp,
});

export const promptVersionLine = z.object({
  version: versionNumber,
  title: text(TITLE_SHAPE_MAX),
  description: text(TITLE_SHAPE_MAX),
  content: text(PROMPT_CONTENT_SHAPE_MAX),
  labels,
  variable_schema: variableSchema,
  commit_message: text(TITLE_SHAPE_MAX).nullable(),
  created_at: timestamp,
});
export type BundlePromptVersion = z.infer<typeof promptVersionLine>;

/** An environment of the prompt on this line: a named pointer to one of its versions. */
export const promptEnvironmentLine = z.object({
  name: text(SLUG_SHAPE_MAX),
  version: versionNumber,
  marketplace: z.boolean().optional(),
});
export type BundlePromptEnvironment = z.infer<typeof promptEnvironmentLine>;
/** The rule is MAX_PROMPT_ENVIRONMENTS per prompt (checked per item); this only stops a runaway list. */
const ENVIRONMENTS_SHAPE_MAX = 1_000;

export const promptLine = z.object({
  type: z.literal('prompt'),
  id: text(ID_MAX),
  slug: text(SLUG_SHAPE_MAX),
  title: text(TITLE_SHAPE_MAX),
  description: text(TITLE_SHAPE_MAX),
  content: text(PROMPT_CONTENT_SHAPE_MAX),
  status: z.enum(PROMPT_STATUSES),
  available_in_mcp: z.boolean(),
  labels,
  variable_schema: variableSchema,
  version: versionNumber,
  created_at: timestamp,
  updated_at: timestamp,
  versions: list(promptVersionLine, MAX_PROMPT_VERSIONS),
  /** Absent in bundles from before environments (issue 19). */
  environments: list(promptEnvironmentLine, ENVIRONMENTS_SHAPE_MAX).optional(),
});
export type BundlePrompt = z.infer<typeof promptLine>;

export const memoryLine = z.object({
  type: z.literal('memory'),
  memory_id: text(ID_MAX).refine((value) => isId('mem', value), 'Not a memory id'),
  text: text(MEMORY_TEXT_SHAPE_MAX),
  project_name: text(PROJECT_SHAPE_MAX).nullable(),
  metadata: object(METADATA_KEYS_SHAPE_MAX),
  created_at: timestamp,
  updated_at: timestamp,
  last_accessed_at: timestamp.nullable(),
  /** Lifecycle (absent in bundles written before it: not expiring, not pinned, not superseded). */
  expires_at: timestamp.nullable().optional(),
  pinned: z.boolean().optional(),
  /** The bundle id of the memory that replaced this one; restored when that memory is imported too. */
  superseded_by: text(ID_MAX)
    .refine((value) => isId('mem', value), 'Not a memory id')
    .nullable()
    .optional(),
  /** The current version's number (absent in bundles from before memory history: 1). */
  version: versionNumber.optional(),
});
export type BundleMemory = z.infer<typeof memoryLine>;

/** A kept (previous) version of the memory on the line before it: a whole snapshot, one per line. */
export const memoryVersionLine = z.object({
  type: z.literal('memory_version'),
  memory_id: text(ID_MAX).refine((value) => isId('mem', value), 'Not a memory id'),
  version: versionNumber,
  text: text(MEMORY_TEXT_SHAPE_MAX),
  project_name: text(PROJECT_SHAPE_MAX).nullable(),
  metadata: object(METADATA_KEYS_SHAPE_MAX),
  created_at: timestamp,
});
export type BundleMemoryVersion = z.infer<typeof memoryVersionLine>;

export const artifactLine = z.object({
  type: z.literal('artifact'),
  id: text(ID_MAX),
  project: text(PROJECT_SHAPE_MAX),
  slug: text(SLUG_SHAPE_MAX),
  title: text(TITLE_SHAPE_MAX),
  description: text(TITLE_SHAPE_MAX),
  content: text(ARTIFACT_CONTENT_SHAPE_MAX),
  content_type: text(1_000),
  labels,
  metadata: object(METADATA_KEYS_SHAPE_MAX),
  version: versionNumber,
  size_bytes: z.number().int().optional(),
  sha256,
  created_at: timestamp,
  updated_at: timestamp,
});
export type BundleArtifact = z.infer<typeof artifactLine>;

/** A kept (previous) version of the artifact on the line before it. */
export const artifactVersionLine = z.object({
  type: z.literal('artifact_version'),
  project: text(PROJECT_SHAPE_MAX),
  slug: text(SLUG_SHAPE_MAX),
  version: versionNumber,
  content: text(ARTIFACT_CONTENT_SHAPE_MAX),
  content_type: text(1_000),
  size_bytes: z.number().int().optional(),
  sha256,
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
  memoryVersionLine,
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
