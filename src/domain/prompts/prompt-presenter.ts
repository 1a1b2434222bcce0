import type { Prompt, PromptSummary, PromptVersionSummary } from './prompt-schemas.js';
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
