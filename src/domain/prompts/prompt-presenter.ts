import { cutText, leadingFitting, type PreviewShape, partLength } from '../common/budget.js';
import type { Prompt, PromptIndexItem, PromptListItem, PromptSummary, PromptVersionSummary } from './prompt-schemas.js';
import type { PromptRecord, PromptSummaryRecord, PromptVersionSummaryRecord } from './prompt-store.js';
import { extractReferences, extractVariables } from './template.js';

/** Records (as stores return them) → the API's shapes. The one place prompt fields are renamed for clients. */
export const toSummary = (record: PromptSummaryRecord): PromptSummary => ({
  id: record.id,
  slug: record.slug,
  title: record.title,
  description: record.description,
  status: record.status,
  available_in_mcp: record.availableInMcp,
  labels: record.labels,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});

/** The whole prompt; `broken_references` needs a lookup, which only the single read (`get`) makes. */
export function toPrompt(record: PromptRecord): Prompt {
  return {
    ...toSummary(record),
    content: record.content,
    variables: extractVariables(record.content),
    references: extractReferences(record.content),
    variable_schema: record.variableSchema,
    version: record.version,
    broken_references: [],
  };
}

export const toVersionSummary = (version: PromptVersionSummaryRecord): PromptVersionSummary => ({
  version: version.version,
  title: version.title,
  commit_message: version.commitMessage,
  created_at: version.createdAt,
});

/** Shortest cut of a title and room for a list (labels, variables) in a preview: enough to recognise it. */
const TITLE_FLOOR = 80;
const LIST_FLOOR = 100;
const cutTitle = (title: string, cut: number) => cutText(title, Math.max(cut, TITLE_FLOOR));
const cutList = <T>(items: T[], cut: number) => leadingFitting(items, Math.max(cut, LIST_FLOOR));

/**
 * How a prompt list item shrinks in a budgeted answer: title (never below 80 characters), description and,
 * with `full=true`, content cut; labels, variables and references to the leading ones that fit; a variable
 * schema longer than the cut left out (`{}`). Read the prompt for the whole.
 */
export const promptListItemPreview: PreviewShape<PromptListItem> = {
  extent: (p) =>
    Math.max(
      p.title.length,
      p.description.length,
      partLength(p.labels),
      p.content?.length ?? 0,
      p.variables ? partLength(p.variables) : 0,
      p.references ? partLength(p.references) : 0,
      p.variable_schema ? partLength(p.variable_schema) : 0,
    ),
  preview: (p, cut) => ({
    ...p,
    title: cutTitle(p.title, cut),
    description: cutText(p.description, cut),
    labels: cutList(p.labels, cut),
    ...(p.content !== undefined && { content: cutText(p.content, cut) }),
    ...(p.variables !== undefined && { variables: cutList(p.variables, cut) }),
    ...(p.references !== undefined && { references: cutList(p.references, cut) }),
    ...(p.variable_schema !== undefined && {
      variable_schema: partLength(p.variable_schema) <= cut ? p.variable_schema : {},
    }),
    truncated: true,
  }),
};

/**
 * Arguments in a preview: all of them while their JSON fits the cut; else their names and `required` flags
 * (what a caller needs to fill the prompt in), the leading ones that fit.
 */
export function previewArguments<A extends { name: string; description?: string; required: boolean }>(
  args: A[],
  cut: number,
): Array<{ name: string; required: boolean }> {
  if (partLength(args) <= cut) return args;
  return cutList(
    args.map(({ name, required }) => ({ name, required })),
    cut,
  );
}

/** How a `svc_list_prompts` item shrinks: as a list item, with its arguments as `previewArguments` leaves them. */
export const promptIndexItemPreview: PreviewShape<PromptIndexItem> = {
  extent: (p) => Math.max(p.title.length, p.description.length, partLength(p.labels), partLength(p.variables)),
  preview: (p, cut) => ({
    ...p,
    title: cutTitle(p.title, cut),
    description: cutText(p.description, cut),
    labels: cutList(p.labels, cut),
    variables: previewArguments(p.variables, cut),
    truncated: true,
  }),
};
