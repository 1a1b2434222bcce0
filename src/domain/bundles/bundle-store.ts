import type { ArtifactRecord } from '../artifacts/artifact-store.js';
import type { MemoryRecord } from '../memories/memory-store.js';
import type { PromptVersion } from '../prompts/prompt-schemas.js';
import type { PromptRecord } from '../prompts/prompt-store.js';

/** A kept artifact version, whole. */
export interface ArtifactVersionRecord {
  version: number;
  content: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
}

/**
 * What export and import need beyond the content stores: reading a user's whole content in bounded,
 * keyset-paginated batches, and inserting rows with the identity, times and history they came with.
 */
export interface BundleStore {
  /** Prompts ordered by id, after `afterId`. */
  prompts(userId: string, afterId: string, limit: number): Promise<PromptRecord[]>;
  /** Every version of the given prompts, oldest first, by prompt id. */
  promptVersions(userId: string, promptIds: string[]): Promise<Map<string, PromptVersion[]>>;
  /** Memories in creation order, after `afterSeq`. */
  memories(userId: string, afterSeq: number, limit: number): Promise<Array<MemoryRecord & { seq: number }>>;
  /** Artifacts in creation order, after `afterSeq`. */
  artifacts(userId: string, afterSeq: number, limit: number): Promise<Array<ArtifactRecord & { seq: number }>>;
  /** Kept versions of one artifact, oldest first, after `afterVersion`. */
  artifactVersions(
    userId: string,
    artifactId: string,
    afterVersion: number,
    limit: number,
  ): Promise<ArtifactVersionRecord[]>;
  /** False when the id is already taken (by anyone): the caller picks another. */
  insertMemory(memory: MemoryRecord): Promise<boolean>;
  insertArtifactVersion(userId: string, artifactId: string, version: ArtifactVersionRecord): Promise<void>;
}
