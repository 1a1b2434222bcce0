import type { Actor } from '../common/actor.js';
import { getVersion, listArtifacts, listVersions } from './artifact-reads.js';
import { type ArtifactDeps, findArtifact } from './artifact-records.js';
import type {
  Artifact,
  ArtifactSummary,
  CreateArtifactInput,
  ListArtifactsQuery,
  UpdateArtifactInput,
} from './artifact-schemas.js';
import type { ArtifactRecord } from './artifact-store.js';
import { createArtifact, deleteArtifact, saveArtifact, updateArtifact } from './artifact-writes.js';

export type { ArtifactLimits } from './artifact-records.js';

export function toSummary(record: ArtifactRecord): ArtifactSummary {
  return {
    id: record.id,
    project: record.project,
    slug: record.slug,
    title: record.title,
    description: record.description,
    content_type: record.contentType,
    labels: record.labels,
    metadata: record.metadata,
    size_bytes: record.sizeBytes,
    sha256: record.sha256,
    version: record.version,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

export const toArtifact = (record: ArtifactRecord): Artifact => ({ ...toSummary(record), content: record.content });

export type ArtifactServiceDeps = ArtifactDeps;

/** Artifacts: reads (artifact-reads.ts) and writes (artifact-writes.ts); the record rules in artifact-records.ts. */
export function createArtifactService(deps: ArtifactServiceDeps) {
  return {
    list: (actor: Actor, query: ListArtifactsQuery) => listArtifacts(deps, actor, query),
    get: async (actor: Actor, project: string, slug: string): Promise<Artifact> =>
      toArtifact(await findArtifact(deps, actor, project, slug)),
    create: (actor: Actor, input: CreateArtifactInput) => createArtifact(deps, actor, input),
    update: (actor: Actor, project: string, slug: string, input: UpdateArtifactInput, ifMatch?: string) =>
      updateArtifact(deps, actor, project, slug, input, ifMatch),
    save: (actor: Actor, input: Parameters<typeof saveArtifact>[2]) => saveArtifact(deps, actor, input),
    delete: (actor: Actor, project: string, slug: string) => deleteArtifact(deps, actor, project, slug),
    versions: (actor: Actor, project: string, slug: string, page: { page: number; per_page: number }) =>
      listVersions(deps, actor, project, slug, page),
    version: (actor: Actor, project: string, slug: string, version: number) =>
      getVersion(deps, actor, project, slug, version),
  };
}

export type ArtifactService = ReturnType<typeof createArtifactService>;
