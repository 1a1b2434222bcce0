import type { ArtifactListItem } from '../artifacts/artifact-schemas.js';
import { cutText, type PreviewShape, partLength } from '../common/budget.js';
import { previewMetadata } from '../memories/memory-presenter.js';
import type { RankedMemory } from '../memories/memory-schemas.js';
import { previewArguments } from '../prompts/prompt-presenter.js';
import type { PromptSummary } from '../prompts/prompt-schemas.js';
import { promptArguments, type VariableSchema } from '../prompts/variables.js';
import type { ContextArtifact, ContextMemory, ContextPrompt } from './context-schemas.js';

/** Where a memory or artifact sits relative to the project the block is for. */
export function placeOf(candidate: string | null, project: string | undefined): string {
  if (candidate === null) return 'global';
  if (project === undefined) return `project ${candidate}`;
  if (candidate === project) return 'this project';
  return candidate.startsWith(`${project}/`) ? `sub-project ${candidate}` : `parent project ${candidate}`;
}

/** A ranked memory in the block, with why it is there: its section's reason and its score's parts. */
export function toContextMemory(memory: RankedMemory, reason: string, project: string | undefined): ContextMemory {
  const parts = memory.score_parts;
  return {
    memory_id: memory.memory_id,
    project_name: memory.project_name,
    text: memory.text,
    metadata: memory.metadata,
    why: {
      reason: `${reason}, ${placeOf(memory.project_name, project)}`,
      score: memory.score ?? 0,
      parts: {
        keyword: parts?.keyword ?? 0,
        project: parts?.project ?? 0,
        priority: parts?.priority ?? 0,
        recency: parts?.recency ?? 0,
      },
    },
  };
}

export const toContextPrompt = (
  prompt: PromptSummary & { variables: string[]; variable_schema: VariableSchema },
): ContextPrompt => ({
  id: prompt.id,
  name: prompt.slug,
  title: prompt.title,
  description: prompt.description,
  arguments: promptArguments(prompt),
  why: 'available to AI tools (available_in_mcp)',
});

export const toContextArtifact = (artifact: ArtifactListItem, project: string | undefined): ContextArtifact => ({
  id: artifact.id,
  project: artifact.project,
  slug: artifact.slug,
  title: artifact.title,
  size_bytes: artifact.size_bytes,
  updated_at: artifact.updated_at,
  why: project === undefined ? 'no project given: every artifact' : `in ${placeOf(artifact.project, project)}`,
});

/** A memory of the block shrinks as in a list: text cut, metadata whole while it fits, else its short known keys. */
export const contextMemoryPreview: PreviewShape<ContextMemory> = {
  extent: (memory) => Math.max(memory.text.length, partLength(memory.metadata)),
  preview: (memory, cut) => ({
    ...memory,
    text: cutText(memory.text, cut),
    metadata: previewMetadata(memory.metadata, cut),
    truncated: true,
  }),
};

/** A prompt of the block: title (never below 80 characters) and description cut; arguments as `previewArguments`. */
export const contextPromptPreview: PreviewShape<ContextPrompt> = {
  extent: (prompt) => Math.max(prompt.title.length, prompt.description.length, partLength(prompt.arguments)),
  preview: (prompt, cut) => ({
    ...prompt,
    title: cutText(prompt.title, Math.max(cut, 80)),
    description: cutText(prompt.description, cut),
    arguments: previewArguments(prompt.arguments, cut),
    truncated: true,
  }),
};

/** An artifact of the block: only its title can be long (never cut below 80 characters). */
export const contextArtifactPreview: PreviewShape<ContextArtifact> = {
  extent: (artifact) => artifact.title.length,
  preview: (artifact, cut) => ({ ...artifact, title: cutText(artifact.title, Math.max(cut, 80)), truncated: true }),
};
