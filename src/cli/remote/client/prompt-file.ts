import { z } from 'zod';
import type {
  CreatePromptInput,
  Prompt,
  PromptStatus,
  UpdatePromptInput,
  VariableSchema,
} from '../../../contract/index.js';
import { labelsSchema, slugSchema } from '../../../domain/common/field-schemas.js';
import { sameJson } from '../../../domain/common/json.js';
import { promptStatusSchema, variableSchemaSchema } from '../../../domain/prompts/prompt-schemas.js';
import { CliError, EXIT } from '../../output.js';
import { parseFrontMatter, serializeFrontMatter } from './front-matter.js';

/**
 * A prompt as a Markdown file (`cairn prompts pull/push/edit`): YAML front matter with the prompt's fields and
 * the version the file was pulled at, then the content.
 *
 * Round trip: the body is the content followed by exactly one newline, and reading strips exactly one
 * trailing newline. So content ending in any number of newlines or spaces survives, and an editor that adds
 * (or keeps) the customary final newline changes nothing. A file whose final newline was removed still reads
 * as the same content.
 */
export interface PromptFile {
  slug: string;
  title: string;
  description: string;
  labels: string[];
  status: PromptStatus;
  available_in_mcp: boolean;
  variable_schema: Record<string, unknown>;
  /** The server version the file is based on; absent in a file never pushed. */
  version?: number;
  content: string;
}

/** Front matter of a prompt file, checked with the domain's own schemas; unknown keys are refused (typos). */
const frontMatterSchema = z.strictObject({
  slug: slugSchema.optional(),
  title: z.string({ error: 'title is required' }).min(1, 'title is required'),
  description: z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
  labels: z
    .array(z.string())
    .nullish()
    .transform((value) => value ?? [])
    .pipe(labelsSchema),
  status: promptStatusSchema.default('draft'),
  available_in_mcp: z.boolean().default(false),
  variable_schema: variableSchemaSchema.nullish().transform((value): Record<string, unknown> => value ?? {}),
  version: z.number().int().positive().optional(),
});

export function promptToFile(prompt: PromptFile): string {
  const data: Record<string, unknown> = {
    slug: prompt.slug,
    title: prompt.title,
    description: prompt.description,
    labels: prompt.labels,
    status: prompt.status,
    available_in_mcp: prompt.available_in_mcp,
    variable_schema: prompt.variable_schema,
  };
  if (prompt.version !== undefined) data.version = prompt.version;
  return serializeFrontMatter(data, `${prompt.content}\n`);
}

/** Parses a prompt file; `fallbackSlug` (the file name) is used when the front matter has none. */
export function fileToPrompt(text: string, fallbackSlug: string, where = 'file'): PromptFile {
  const { data, body } = parseFrontMatter(text, where);
  if (!data) throw new CliError(`${where}: no front matter (a prompt file starts with a --- line)`, EXIT.usage);
  const parsed = frontMatterSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'front matter'}: ${issue.message}`);
    throw new CliError(`${where}: ${problems.join('; ')}`, EXIT.usage);
  }
  const { version, slug, ...fields } = parsed.data;
  return {
    slug: slug ?? fallbackSlug,
    ...fields,
    ...(version === undefined ? {} : { version }),
    content: body.endsWith('\n') ? body.slice(0, -1) : body,
  };
}

/**
 * What `fromServer` reads: a whole prompt (GET /prompts/{id_or_slug}), a list item with `full=true`, or a
 * kept version laid over the prompt.
 */
export type ServerPrompt = Pick<
  Prompt,
  'slug' | 'title' | 'description' | 'labels' | 'status' | 'available_in_mcp' | 'content'
> & { variable_schema?: Record<string, unknown>; version?: number };

/** A server prompt as a file's fields. */
export function fromServer(prompt: ServerPrompt): PromptFile {
  return {
    slug: prompt.slug,
    title: prompt.title,
    description: prompt.description ?? '',
    labels: prompt.labels ?? [],
    status: prompt.status,
    available_in_mcp: prompt.available_in_mcp,
    variable_schema: prompt.variable_schema ?? {},
    ...(typeof prompt.version === 'number' ? { version: prompt.version } : {}),
    content: prompt.content,
  };
}

const EDITABLE = [
  'title',
  'description',
  'content',
  'labels',
  'status',
  'available_in_mcp',
  'variable_schema',
] as const;

/** The fields of `local` that differ from `remote`, as a PUT body (empty when nothing changed). */
export function changedFields(local: PromptFile, remote: PromptFile): UpdatePromptInput {
  const body: Record<string, unknown> = {};
  const normalised = { ...local, title: local.title.trim(), description: local.description.trim() };
  for (const field of EDITABLE) {
    if (!sameJson(normalised[field], remote[field])) body[field] = local[field];
  }
  // Each field is copied from a PromptFile, whose fields have the input's types.
  return body as UpdatePromptInput;
}

/** The body of POST /prompts for a file. */
export function createBody(file: PromptFile): CreatePromptInput {
  const body: CreatePromptInput = {
    slug: file.slug,
    title: file.title,
    description: file.description,
    content: file.content,
    labels: file.labels,
    status: file.status,
    available_in_mcp: file.available_in_mcp,
  };
  // The schema was checked when the file was read (frontMatterSchema) or came from the server.
  if (Object.keys(file.variable_schema).length > 0) body.variable_schema = file.variable_schema as VariableSchema;
  return body;
}
