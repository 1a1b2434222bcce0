import type { z } from 'zod';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { sha256Hex } from '../common/digest.js';
import {
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  PreconditionFailedError,
  ValidationError,
} from '../common/errors.js';
import { etagOf, ifMatchAllows } from '../common/etag.js';
import { normaliseLabelFilter } from '../common/field-schemas.js';
import type { IdGenerator } from '../common/ids.js';
import { sameJson } from '../common/json.js';
import { pageOffset } from '../common/pagination.js';
import { projectNameProblem } from '../common/project.js';
import { searchWords } from '../common/search-words.js';
import { freeSlug, insertWithSlug, isValidSlug, slugify } from '../common/slug.js';
import { parseInput } from '../common/validation.js';
import { currentVersion, toArtifact, toSummary, toVersion, toVersionSummary } from './artifact-presenter.js';
import {
  type Artifact,
  type ArtifactVersion,
  type CreateArtifactInput,
  createArtifactBody,
  type ListArtifactsQuery,
  type UpdateArtifactInput,
  updateArtifactBody,
  type VersionSummary,
} from './artifact-schemas.js';
import type { ArtifactRecord, ArtifactStore } from './artifact-store.js';

export const ARTIFACT_MESSAGES = {
  created: 'Artifact created successfully',
  updated: 'Artifact updated successfully',
  deleted: 'Artifact deleted successfully',
} as const;

export interface ArtifactLimits {
  /** Largest content in UTF-8 bytes. */
  maxContentBytes: number;
  /** Previous versions kept per artifact (0 keeps none). */
  keepVersions: number;
}

/** Search words: runs of letters and digits, lowercased, bounded (search-words.ts); every one must occur. */
export const artifactSearchWords = (search: string | undefined): string[] => searchWords(search, 'letters');

export interface ArtifactServiceDeps {
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

export function createArtifactService({ artifacts, clock, ids, limits }: ArtifactServiceDeps) {
  function checkSize(content: string): number {
    const size = Buffer.byteLength(content, 'utf8');
    const tooLarge = oversize(size, limits.maxContentBytes);
    if (tooLarge) throw new PayloadTooLargeError(tooLarge);
    return size;
  }

  async function find(actor: Actor, project: string, slug: string): Promise<ArtifactRecord> {
    // An address that cannot exist names no artifact: not found, without a query.
    const possible = isValidSlug(slug) && projectNameProblem(project) === undefined;
    const record = possible ? await artifacts.find(actor.userId, project, slug) : undefined;
    if (!record) throw new NotFoundError('Artifact');
    return record;
  }

  const service = {
    async list(actor: Actor, query: ListArtifactsQuery) {
      const page = await artifacts.list(actor.userId, {
        ...(query.project !== undefined && { projectTree: query.project }),
        labels: normaliseLabelFilter(query.label),
        ...(query.content_type !== undefined && { contentType: query.content_type.trim().toLowerCase() }),
        words: artifactSearchWords(query.search),
        offset: pageOffset(query),
        limit: query.per_page,
      });
      return { artifacts: page.items.map(toSummary), total: page.total, page: query.page, per_page: query.per_page };
    },

    get: async (actor: Actor, project: string, slug: string): Promise<Artifact> =>
      toArtifact(await find(actor, project, slug)),

    async create(actor: Actor, input: CreateArtifactInput) {
      const data = parseInput(createArtifactBody, input);
      checkSize(data.content);
      const now = clock.now().toISOString();
      return insertWithSlug(
        data.slug,
        () =>
          freeSlug(slugify(data.title, 'artifact'), (prefix) =>
            artifacts.slugsStartingWith(actor.userId, data.project, prefix),
          ),
        async (slug) => {
          const record = newArtifactRecord(data, {
            id: ids('art'),
            userId: actor.userId,
            slug,
            version: 1,
            versionCreatedAt: now,
            createdAt: now,
            updatedAt: now,
          });
          await artifacts.insert(record);
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
    },

    /**
     * Partial update. With `ifMatch`, refused (412) unless the current version matches; either way the
     * write only lands on the version it was computed from, so concurrent writers cannot both win.
     */
    async update(actor: Actor, project: string, slug: string, input: UpdateArtifactInput, ifMatch?: string) {
      const data = parseInput(updateArtifactBody, input);
      const size = data.content === undefined ? undefined : checkSize(data.content);
      const current = await find(actor, project, slug);
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
      const outcome = await artifacts.update(
        actor.userId,
        current.id,
        current.version,
        changes,
        clock.now().toISOString(),
        limits.keepVersions,
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
    },

    /**
     * Create-or-update by address: updates `project/slug` when it exists (a content change becomes a new
     * version), otherwise creates it, which needs a title. Used by clients that save documents without
     * tracking whether they exist (MCP `svc_save_artifact`).
     */
    async save(
      actor: Actor,
      input: { project: string; slug?: string; title?: string } & Omit<UpdateArtifactInput, 'title'> & {
          content: string;
        },
    ): Promise<{ project: string; slug: string; version: number; created: boolean }> {
      const { project, slug, title, ...fields } = input;
      if (slug !== undefined) {
        const existing = await artifacts.find(actor.userId, project, slug);
        if (existing) {
          const updated = await service.update(actor, project, slug, {
            ...fields,
            ...(title !== undefined && { title }),
          });
          return { project, slug, version: updated.version, created: false };
        }
      }
      if (title === undefined) throw new ValidationError({ title: 'A title is needed to create an artifact' });
      try {
        const created = await service.create(actor, { project, title, ...fields, ...(slug !== undefined && { slug }) });
        return { project: created.project, slug: created.slug, version: created.version, created: true };
      } catch (error) {
        // Created by another writer between the lookup and this create.
        if (error instanceof ConflictError) throw new ConflictError(`${error.message}; save again to update it`);
        throw error;
      }
    },

    async delete(actor: Actor, project: string, slug: string) {
      const record = await find(actor, project, slug);
      if (!(await artifacts.delete(actor.userId, record.id))) throw new NotFoundError('Artifact');
      return { message: ARTIFACT_MESSAGES.deleted };
    },

    /** Every version, the current one first, then the kept ones newest first. */
    async versions(actor: Actor, project: string, slug: string, page: { page: number; per_page: number }) {
      const record = await find(actor, project, slug);
      const offset = pageOffset(page);
      // The current version occupies position 0; kept versions follow.
      const kept = await artifacts.listVersions(
        actor.userId,
        record.id,
        Math.max(0, offset - 1),
        offset === 0 ? page.per_page - 1 : page.per_page,
      );
      const versions: VersionSummary[] = [
        ...(offset === 0 ? [toVersionSummary(currentVersion(record), true)] : []),
        ...kept.items.map((v) => toVersionSummary(v, false)),
      ];
      return { versions, total: kept.total + 1, page: page.page, per_page: page.per_page };
    },

    async version(actor: Actor, project: string, slug: string, version: number): Promise<ArtifactVersion> {
      const record = await find(actor, project, slug);
      if (version === record.version) return toVersion(currentVersion(record), true);
      if (!Number.isInteger(version) || version < 1)
        throw new ValidationError({ version: 'Must be a positive integer' });
      const kept = await artifacts.findVersion(actor.userId, record.id, version);
      if (!kept) throw new NotFoundError('Artifact version');
      return toVersion(kept, false);
    },
  };
  return service;
}

export type ArtifactService = ReturnType<typeof createArtifactService>;
