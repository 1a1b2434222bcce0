import type { Change } from '../common/audit.js';
import type { Page } from '../common/pagination.js';

export interface ArtifactRecord {
  id: string;
  userId: string;
  project: string;
  slug: string;
  title: string;
  description: string;
  content: string;
  contentType: string;
  labels: string[];
  metadata: Record<string, unknown>;
  sizeBytes: number;
  sha256: string;
  version: number;
  /** When the current version's content was written. */
  versionCreatedAt: string;
  createdAt: string;
  updatedAt: string;
}

/** An artifact as lists read it: everything but its (up to 10 MiB) content. */
export type ArtifactSummaryRecord = Omit<ArtifactRecord, 'userId' | 'content' | 'versionCreatedAt'>;

/** One version's content description (a kept version, or the current one). */
export interface ArtifactVersionRecord {
  version: number;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
}

export interface ArtifactListFilter {
  /** That project and its descendants. */
  projectTree?: string;
  /** Every label must be present. */
  labels: string[];
  contentType?: string;
  /** Words that must all occur in title, description or content. */
  words: string[];
  offset: number;
  limit: number;
}

export type ArtifactChanges = Partial<
  Pick<
    ArtifactRecord,
    'title' | 'description' | 'content' | 'contentType' | 'labels' | 'metadata' | 'sizeBytes' | 'sha256'
  >
>;

export type UpdateOutcome =
  | { status: 'updated'; version: number }
  | { status: 'not_found' }
  /** The version was no longer `expectedVersion` when the write was applied. */
  | { status: 'conflict'; version: number };

/** Writes take the change (origin and time) and append their audit row in the same transaction. */
export interface ArtifactStore {
  /** Throws ConflictError when the user already has this project/slug. */
  insert(artifact: ArtifactRecord, change: Change): Promise<void>;
  find(userId: string, project: string, slug: string): Promise<ArtifactRecord | undefined>;
  /** Newest `updated_at` first; never reads `content`. */
  list(userId: string, filter: ArtifactListFilter): Promise<Page<ArtifactSummaryRecord>>;
  /**
   * Applies `changes` atomically if the version is still `expectedVersion`. When content changes, the
   * previous content becomes a kept version, the version number goes up by one, and versions beyond
   * `keepVersions` are dropped, oldest first.
   */
  update(
    userId: string,
    id: string,
    expectedVersion: number,
    changes: ArtifactChanges,
    at: string,
    keepVersions: number,
    change: Change,
  ): Promise<UpdateOutcome>;
  delete(userId: string, id: string, change: Change): Promise<boolean>;
  /** Kept versions (not the current one), newest first. */
  listVersions(userId: string, artifactId: string, offset: number, limit: number): Promise<Page<ArtifactVersionRecord>>;
  findVersion(
    userId: string,
    artifactId: string,
    version: number,
  ): Promise<(ArtifactVersionRecord & { content: string }) | undefined>;
  slugsStartingWith(userId: string, project: string, prefix: string): Promise<string[]>;
}
