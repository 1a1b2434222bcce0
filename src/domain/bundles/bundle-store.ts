import type { ArtifactRecord } from '../artifacts/artifact-store.js';
import type { Change } from '../common/audit.js';
import type { MemoryRecord, MemoryVersionRecord } from '../memories/memory-store.js';
import type { PromptVersion } from '../prompts/prompt-schemas.js';
import type { PromptEnvironmentRecord, PromptRecord } from '../prompts/prompt-store.js';

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
  /** The environments of the given prompts, by prompt id. */
  promptEnvironments(userId: string, promptIds: string[]): Promise<Map<string, PromptEnvironmentRecord[]>>;
  /** Memories in creation order, after `afterSeq`, with their current version's number. */
  memories(
    userId: string,
    afterSeq: number,
    limit: number,
  ): Promise<Array<MemoryRecord & { seq: number; version: number }>>;
  /**
   * Kept versions of the memories whose `seq` is in (`seqs.after`, `seqs.last`] (one export batch), in
   * memory creation order then version order, the next `limit` after position `from` (keyset).
   */
  memoryVersions(
    userId: string,
    seqs: { after: number; last: number },
    from: { seq: number; version: number },
    limit: number,
  ): Promise<Array<MemoryVersionRecord & { memoryId: string; seq: number }>>;
  /** Artifacts in creation order, after `afterSeq`. */
  artifacts(userId: string, afterSeq: number, limit: number): Promise<Array<ArtifactRecord & { seq: number }>>;
  /** Kept versions of one artifact, oldest first, after `afterVersion`. */
  artifactVersions(
    userId: string,
    artifactId: string,
    afterVersion: number,
    limit: number,
  ): Promise<ArtifactVersionRecord[]>;
  /** False when the id is already taken (by anyone): the caller picks another. `version`: its current one. */
  insertMemory(memory: MemoryRecord, change: Change, version?: number): Promise<boolean>;
  insertMemoryVersion(userId: string, memoryId: string, version: MemoryVersionRecord): Promise<void>;
  insertArtifactVersion(userId: string, artifactId: string, version: ArtifactVersionRecord): Promise<void>;
}
