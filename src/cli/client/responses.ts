import type { z } from 'zod';
import type {
  artifactListSchema,
  artifactSchema,
  artifactWrittenSchema,
} from '../../domain/artifacts/artifact-schemas.js';
import type { importResultSchema } from '../../domain/bundles/bundle-schemas.js';
import type { memoryListSchema, memorySchema, memoryWithMessageSchema } from '../../domain/memories/memory-schemas.js';
import type {
  promptCreatedSchema,
  promptListSchema,
  promptSchema,
  promptUpdatedSchema,
  promptVersionListSchema,
  promptVersionSchema,
  renderResultSchema,
} from '../../domain/prompts/prompt-schemas.js';

/**
 * The REST answers the CLI reads, typed from the same zod schemas the server's routes declare as their
 * responses (type-only imports: nothing of the schemas is loaded at run time). The CLI reads what it prints;
 * a field it does not know is passed through by `--json` untouched.
 */
export type PromptList = z.infer<typeof promptListSchema>;
export type PromptListItem = PromptList['prompts'][number];
export type Prompt = z.infer<typeof promptSchema>;
export type PromptCreated = z.infer<typeof promptCreatedSchema>;
export type PromptUpdated = z.infer<typeof promptUpdatedSchema>;
export type PromptVersionList = z.infer<typeof promptVersionListSchema>;
export type PromptVersion = z.infer<typeof promptVersionSchema>;
export type RenderResult = z.infer<typeof renderResultSchema>;

export type MemoryList = z.infer<typeof memoryListSchema>;
export type Memory = z.infer<typeof memorySchema>;
export type MemoryWritten = z.infer<typeof memoryWithMessageSchema>;

export type ArtifactList = z.infer<typeof artifactListSchema>;
export type Artifact = z.infer<typeof artifactSchema>;
export type ArtifactWritten = z.infer<typeof artifactWrittenSchema>;

export type ImportResult = z.infer<typeof importResultSchema>;

/** DELETE answers. */
export interface Deleted {
  message: string;
}
