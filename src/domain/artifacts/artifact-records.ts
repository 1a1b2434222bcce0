import type { z } from 'zod';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { sha256Hex } from '../common/digest.js';
import { NotFoundError, PayloadTooLargeError } from '../common/errors.js';
import type { IdGenerator } from '../common/ids.js';
import { sameJson } from '../common/json.js';
import { projectNameProblem } from '../common/project.js';
import { isValidSlug } from '../common/slug.js';
import type { createArtifactBody } from './artifact-schemas.js';
import type { ArtifactRecord, ArtifactStore } from './artifact-store.js';

export interface ArtifactLimits {
  /** Largest content in UTF-8 bytes. */
  maxContentBytes: number;
  /** Previous versions kept per artifact (0 keeps none). */
  keepVersions: number;
}

/** What the artifact operations need. */
export interface ArtifactDeps {
  artifacts: ArtifactStore;
  clock: Clock;
  ids: IdGenerator;
  limits: ArtifactLimits;
}

/**
 * A new artifact's record from its checked create body (the one mapping of the API's fields to the stored
 * ones, with the size and digest derived from the content, for a create and an import); `at` says where and
 * when.
 */
export const newArtifactRecord = (
  data: z.output<typeof createArtifactBody>,
  at: Pick<ArtifactRecord, 'id' | 'userId' | 'slug' | 'version' | 'versionCreatedAt' | 'createdAt' | 'updatedAt'>,
): ArtifactRecord => ({
  ...at,
  project: data.project,
  title: data.title,
  description: data.description,
  content: data.content,
  contentType: data.content_type,
  labels: data.labels,
  metadata: data.metadata,
  sizeBytes: Buffer.byteLength(data.content, 'utf8'),
  sha256: sha256Hex(data.content),
});

/** Whether writing these (normalised) fields would change nothing: what an import reports as unchanged. */
export const artifactUnchanged = (
  current: ArtifactRecord,
  next: {
    title: string;
    description: string;
    content: string;
    content_type: string;
    labels: string[];
    metadata: unknown;
  },
): boolean =>
  current.title === next.title &&
  current.description === next.description &&
  current.content === next.content &&
  current.contentType === next.content_type &&
  sameJson(current.labels, next.labels) &&
  sameJson(current.metadata, next.metadata);

/** Why content of `size` bytes is refused under the limit, or undefined when it fits. */
export const oversize = (size: number, maxBytes: number): string | undefined =>
  size > maxBytes ? `Artifact content is ${size} bytes; the limit is ${maxBytes} bytes` : undefined;

export function checkSize(deps: Pick<ArtifactDeps, 'limits'>, content: string): number {
  const size = Buffer.byteLength(content, 'utf8');
  const tooLarge = oversize(size, deps.limits.maxContentBytes);
  if (tooLarge) throw new PayloadTooLargeError(tooLarge);
  return size;
}

export async function findArtifact(
  deps: Pick<ArtifactDeps, 'artifacts'>,
  actor: Actor,
  project: string,
  slug: string,
): Promise<ArtifactRecord> {
  // An address that cannot exist names no artifact: not found, without a query.
  const possible = isValidSlug(slug) && projectNameProblem(project) === undefined;
  const record = possible ? await deps.artifacts.find(actor.userId, project, slug) : undefined;
  if (!record) throw new NotFoundError('Artifact');
  return record;
}
