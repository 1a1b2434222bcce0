import type { Actor } from '../common/actor.js';
import { changeBy } from '../common/audit.js';
import { sha256Hex } from '../common/digest.js';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../common/errors.js';
import { etagOf, ifMatchAllows } from '../common/etag.js';
import { freeSlug, insertWithSlug, slugify } from '../common/slug.js';
import { parseInput } from '../common/validation.js';
import { type ArtifactDeps, checkSize, findArtifact, newArtifactRecord } from './artifact-records.js';
import {
  type CreateArtifactInput,
  createArtifactBody,
  type UpdateArtifactInput,
  updateArtifactBody,
} from './artifact-schemas.js';

export const ARTIFACT_MESSAGES = {
  created: 'Artifact created successfully',
  updated: 'Artifact updated successfully',
  deleted: 'Artifact deleted successfully',
} as const;

export async function createArtifact(deps: ArtifactDeps, actor: Actor, input: CreateArtifactInput) {
  const data = parseInput(createArtifactBody, input);
  checkSize(deps, data.content);
  const at = deps.clock.now();
  const now = at.toISOString();
  return insertWithSlug(
    data.slug,
    () =>
      freeSlug(slugify(data.title, 'artifact'), (prefix) =>
        deps.artifacts.slugsStartingWith(actor.userId, data.project, prefix),
      ),
    async (slug) => {
      const record = newArtifactRecord(data, {
        id: deps.ids('art'),
        userId: actor.userId,
        slug,
        version: 1,
        versionCreatedAt: now,
        createdAt: now,
        updatedAt: now,
      });
      await deps.artifacts.insert(record, changeBy(actor, at));
      return {
        id: record.id,
        project: record.project,
        slug,
        title: record.title,
        version: 1,
        message: ARTIFACT_MESSAGES.created,
      };
    },
    (slug) => new ConflictError(`You already have an artifact '${slug}' in project '${data.project}'`),
  );
}

/**
 * Partial update. With `ifMatch`, refused (412) unless the current version matches; either way the
 * write only lands on the version it was computed from, so concurrent writers cannot both win.
 */
export async function updateArtifact(
  deps: ArtifactDeps,
  actor: Actor,
  project: string,
  slug: string,
  input: UpdateArtifactInput,
  ifMatch?: string,
) {
  const data = parseInput(updateArtifactBody, input);
  const now = deps.clock.now();
  const size = data.content === undefined ? undefined : checkSize(deps, data.content);
  const current = await findArtifact(deps, actor, project, slug);
  if (!ifMatchAllows(ifMatch, current.version)) {
    throw new PreconditionFailedError(`If-Match does not match the current version ${etagOf(current.version)}`);
  }
  const contentChanged = data.content !== undefined && data.content !== current.content;
  const changes = {
    ...(data.title !== undefined && { title: data.title }),
    ...(data.description !== undefined && { description: data.description }),
    ...(data.content_type !== undefined && { contentType: data.content_type }),
    ...(data.labels !== undefined && { labels: data.labels }),
    ...(data.metadata !== undefined && { metadata: data.metadata }),
    ...(contentChanged && { content: data.content, sizeBytes: size, sha256: sha256Hex(data.content as string) }),
  };
  const outcome = await deps.artifacts.update(
    actor.userId,
    current.id,
    current.version,
    changes,
    now.toISOString(),
    deps.limits.keepVersions,
    changeBy(actor, now),
  );
  if (outcome.status === 'not_found') throw new NotFoundError('Artifact');
  if (outcome.status === 'conflict') {
    throw new PreconditionFailedError(
      `The artifact changed while this update was applied (now version ${outcome.version}); read it again and retry`,
    );
  }
  return {
    id: current.id,
    project,
    slug,
    title: changes.title ?? current.title,
    version: outcome.version,
    message: ARTIFACT_MESSAGES.updated,
  };
}

/**
 * Create-or-update by address: updates `project/slug` when it exists (a content change becomes a new
 * version), otherwise creates it, which needs a title. Used by clients that save documents without
 * tracking whether they exist (MCP `svc_save_artifact`).
 */
export async function saveArtifact(
  deps: ArtifactDeps,
  actor: Actor,
  input: { project: string; slug?: string; title?: string } & Omit<UpdateArtifactInput, 'title'> & {
      content: string;
    },
): Promise<{ project: string; slug: string; version: number; created: boolean }> {
  const { project, slug, title, ...fields } = input;
  if (slug !== undefined) {
    const existing = await deps.artifacts.find(actor.userId, project, slug);
    if (existing) {
      const updated = await updateArtifact(deps, actor, project, slug, {
        ...fields,
        ...(title !== undefined && { title }),
      });
      return { project, slug, version: updated.version, created: false };
    }
  }
  if (title === undefined) throw new ValidationError({ title: 'A title is needed to create an artifact' });
  try {
    const created = await createArtifact(deps, actor, {
      project,
      title,
      ...fields,
      ...(slug !== undefined && { slug }),
    });
    return { project: created.project, slug: created.slug, version: created.version, created: true };
  } catch (error) {
    // Created by another writer between the lookup and this create.
    if (error instanceof ConflictError) throw new ConflictError(`${error.message}; save again to update it`);
    throw error;
  }
}

export async function deleteArtifact(deps: ArtifactDeps, actor: Actor, project: string, slug: string) {
  const record = await findArtifact(deps, actor, project, slug);
  if (!(await deps.artifacts.delete(actor.userId, record.id, changeBy(actor, deps.clock.now())))) {
    throw new NotFoundError('Artifact');
  }
  return { message: ARTIFACT_MESSAGES.deleted };
}
