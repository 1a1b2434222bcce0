import { z } from 'zod';
import {
  artifactFields,
  artifactIndexPageSchema,
  artifactSummarySchema,
  contentTypeSchema,
} from '../../domain/artifacts/artifact-schemas.js';
import {
  LABEL_MAX,
  labelSchema,
  MAX_LABELS,
  projectNameSchema,
  slugSchema,
} from '../../domain/common/field-schemas.js';
import { searchSchema } from '../../domain/common/search.js';
import {
  continueLine,
  cursorArg,
  defineTool,
  looseInt,
  maxCharsArg,
  overwriting,
  readOnly,
  stringList,
  withinBudget,
} from '../tool.js';

export const artifactTools = [
  defineTool({
    name: 'svc_list_artifacts',
    title: 'List artifacts',
    description:
      'List documents (design notes, specs, reports) saved as artifacts, newest first, optionally in a project (and its sub-projects) or matching words — without their content: read one with svc_get_artifact (project and slug). ' +
      'The answer stays within max_chars (default 20,000 characters): long titles, descriptions and metadata come back cut (truncated: true); when next_cursor is not null, call again with cursor set to it for the rest.',
    input: z.strictObject({
      project: projectNameSchema.optional().describe('Project, e.g. "acme/backend"'),
      search: searchSchema.optional().describe('Words that must all occur'),
      labels: stringList(labelSchema, MAX_LABELS, LABEL_MAX).optional(),
      limit: looseInt(1, 100).default(20).describe('How many artifacts at most, 1–100 (default 20)'),
      cursor: cursorArg.optional(),
      max_chars: maxCharsArg,
    }),
    output: artifactIndexPageSchema,
    annotations: readOnly,
    async run(services, actor, args) {
      const page = await services.artifacts.index(actor, {
        ...(args.project !== undefined && { project: args.project }),
        ...(args.search !== undefined && { search: args.search }),
        label: args.labels ?? [],
        ...(args.cursor !== undefined && { cursor: args.cursor }),
        limit: args.limit,
        max_chars: args.max_chars,
      });
      const text =
        page.artifacts.length === 0
          ? 'No artifacts found.'
          : page.artifacts
              .map(
                (a) =>
                  `${a.project}/${a.slug} v${a.version} (${a.content_type}, ${a.size_bytes} bytes): ${a.title}${a.truncated ? ' (a preview)' : ''}`,
              )
              .join('\n') + continueLine('svc_list_artifacts', page.next_cursor);
      return { structured: page, text: withinBudget(text, args.max_chars) };
    },
  }),
  defineTool({
    name: 'svc_get_artifact',
    title: 'Get artifact',
    description:
      'Read an artifact by project and slug. Large artifacts can be read in pieces with offset and length (in characters); the answer says how long the whole content is.',
    input: z.strictObject({
      project: projectNameSchema,
      slug: slugSchema,
      offset: looseInt(0, Number.MAX_SAFE_INTEGER).default(0),
      length: looseInt(1, 10 * 1024 * 1024)
        .optional()
        .describe('Characters to return (default: the rest)'),
    }),
    output: artifactSummarySchema.extend({
      content: z.string(),
      offset: z.number().int(),
      total_length: z.number().int(),
      truncated: z.boolean(),
    }),
    annotations: readOnly,
    async run(services, actor, args) {
      const artifact = await services.artifacts.get(actor, args.project, args.slug);
      const end = args.length === undefined ? artifact.content.length : args.offset + args.length;
      const content = artifact.content.slice(args.offset, end);
      const truncated = end < artifact.content.length;
      return {
        structured: { ...artifact, content, offset: args.offset, total_length: artifact.content.length, truncated },
        text: truncated
          ? `${content}\n\n[characters ${args.offset}–${args.offset + content.length} of ${artifact.content.length}; continue with offset ${args.offset + content.length}]`
          : content,
      };
    },
  }),
  defineTool({
    name: 'svc_save_artifact',
    title: 'Save artifact',
    description:
      'Save a document as an artifact: creates it, or, when project and slug name an existing one, updates it (a content change becomes a new version). A title is needed to create.',
    input: z.strictObject({
      project: projectNameSchema.describe('Project, e.g. "acme/backend"'),
      slug: slugSchema
        .optional()
        .describe('Address within the project; generated from the title when creating without one'),
      title: artifactFields.title.optional(),
      content: artifactFields.content,
      content_type: contentTypeSchema.optional().describe('MIME type, default text/markdown'),
      description: artifactFields.description.optional(),
      labels: stringList(labelSchema, MAX_LABELS, LABEL_MAX).optional(),
    }),
    output: z.object({ project: z.string(), slug: z.string(), version: z.number().int(), created: z.boolean() }),
    annotations: overwriting,
    async run(services, actor, args) {
      const saved = await services.artifacts.save(actor, args);
      const where = `${saved.project}/${saved.slug}`;
      return {
        structured: saved,
        text: saved.created ? `Created ${where} (version 1).` : `Updated ${where}, now version ${saved.version}.`,
      };
    },
  }),
];
