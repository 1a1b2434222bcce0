import type { Actor } from '../common/actor.js';
import { toArtifact } from './artifact-presenter.js';
import { type ArtifactFilter, getVersion, listArtifactIndex, listArtifacts, listVersions } from './artifact-reads.js';
import { type ArtifactDeps, findArtifact } from './artifact-records.js';
import type { Artifact, CreateArtifactInput, ListArtifactsQuery, UpdateArtifactInput } from './artifact-schemas.js';
import { createArtifact, deleteArtifact, saveArtifact, updateArtifact } from './artifact-writes.js';

export type { ArtifactLimits } from './artifact-records.js';

export type ArtifactServiceDeps = ArtifactDeps;

/** Artifacts: reads (artifact-reads.ts) and writes (artifact-writes.ts); the record rules in artifact-records.ts. */
export function createArtifactService(deps: ArtifactServiceDeps) {
  return {
    list: (actor: Actor, query: ListArtifactsQuery) => listArtifacts(deps, actor, query),
    /** `svc_list_artifacts` and the context block: the list from a cursor, within a budget. */
    index: (actor: Actor, options: ArtifactFilter & { cursor?: number; limit: number; max_chars: number }) =>
      listArtifactIndex(deps, actor, options),
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
