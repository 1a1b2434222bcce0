import { z } from 'zod';
import { CONTEXT_TASK_MAX } from '../../contract/index.js';
import { boundedString } from '../common/bounds.js';
import { projectNameSchema, truncatedSchema } from '../common/field-schemas.js';
import { defaultedMaxCharsParam } from '../common/pagination.js';
import { promptArgumentSchema } from '../prompts/prompt-schemas.js';

export const TASK_MESSAGE = `Task must be at most ${CONTEXT_TASK_MAX.toLocaleString('en-US')} characters`;

/** What the task at hand is about, in the agent's words: its leading words become the relevance search. */
export const taskSchema = boundedString(CONTEXT_TASK_MAX, TASK_MESSAGE).meta({
  description: `The task at hand in a sentence or a few (at most ${CONTEXT_TASK_MAX} characters): its first words (up to 32, common English words left out) choose the relevant memories`,
});

/** `GET /api/v1/context` (query strings). `svc_get_context` takes the same fields as arguments. */
export const contextQuery = z.object({
  project_name: projectNameSchema.optional().meta({
    description: 'The project being worked on, e.g. `acme/backend`; absent: every project',
  }),
  task: taskSchema.optional(),
  max_chars: defaultedMaxCharsParam,
});
export type ContextQuery = z.output<typeof contextQuery>;

/** The input of the context service, whichever surface sent it. */
export interface ContextInput {
  project_name?: string | undefined;
  task?: string | undefined;
  max_chars: number;
}

const scorePartsSchema = z.object({
  keyword: z.number(),
  project: z.number(),
  priority: z.number(),
  recency: z.number(),
});

/** Why a memory is in the block: its section's reason, and the ranked search's score and parts. */
export const memoryWhySchema = z.object({
  reason: z.string().meta({ description: 'e.g. "high priority, parent project acme" or "matches the task"' }),
  score: z.number(),
  parts: scorePartsSchema.meta({ description: 'The parts of the score, each in [0, 1] (docs/memory-search.md)' }),
});

export const contextMemorySchema = z.object({
  memory_id: z.string(),
  project_name: z.string().nullable(),
  text: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  truncated: truncatedSchema,
  why: memoryWhySchema,
});
export type ContextMemory = z.infer<typeof contextMemorySchema>;

export const contextPromptSchema = z.object({
  id: z.string(),
  name: z.string().meta({ description: 'The slug: the MCP prompt name and what svc_get_prompt takes' }),
  title: z.string(),
  description: z.string(),
  arguments: z.array(promptArgumentSchema),
  truncated: truncatedSchema,
  why: z.string(),
});
export type ContextPrompt = z.infer<typeof contextPromptSchema>;

export const contextArtifactSchema = z.object({
  id: z.string(),
  project: z.string(),
  slug: z.string(),
  title: z.string(),
  size_bytes: z.number().int(),
  updated_at: z.string(),
  truncated: truncatedSchema,
  why: z.string(),
});
export type ContextArtifact = z.infer<typeof contextArtifactSchema>;

/** Counts by kind of what qualified for the block but is not in it (the budget, or a section's cap). */
export const leftOutSchema = z.object({
  memories: z.number().int(),
  prompts: z.number().int(),
  artifacts: z.number().int(),
});

export const contextSchema = z.object({
  project_name: z.string().nullable(),
  max_chars: z.number().int(),
  pinned_memories: z.array(contextMemorySchema).meta({
    description:
      'Pinned memories (first), then high-priority ones, of the project, its sub-projects, its parent projects and global ones, nearest first; expired and superseded memories are never included',
  }),
  relevant_memories: z.array(contextMemorySchema).meta({
    description:
      'The memories ranked best for the task (without a task: the automatic context of the project), pinned ones left out',
  }),
  prompts: z.array(contextPromptSchema).meta({ description: 'The prompts available to AI tools, newest first' }),
  artifacts: z
    .array(contextArtifactSchema)
    .meta({ description: "The project's artifacts (and its sub-projects'), newest first, without content" }),
  left_out: leftOutSchema,
});
export type Context = z.infer<typeof contextSchema>;
