import type { Actor } from '../common/actor.js';
import { NotFoundError, ValidationError } from '../common/errors.js';
import { normaliseLabelFilter } from '../common/field-schemas.js';
import { pageOffset } from '../common/pagination.js';
import { searchWords } from '../common/search-words.js';
import { currentVersion, toSummary, toVersion, toVersionSummary } from './artifact-presenter.js';
import { type ArtifactDeps, findArtifact } from './artifact-records.js';
import type { ArtifactVersion, ListArtifactsQuery, VersionSummary } from './artifact-schemas.js';

/** Search words: runs of letters and digits, lowercased, bounded (search-words.ts); every one must occur. */
export const artifactSearchWords = (search: string | undefined): string[] => searchWords(search, 'letters');

export async function listArtifacts(deps: ArtifactDeps, actor: Actor, query: ListArtifactsQuery) {
  const page = await deps.artifacts.list(actor.userId, {
    ...(query.project !== undefined && { projectTree: query.project }),
    labels: normaliseLabelFilter(query.label),
    ...(query.content_type !== undefined && { contentType: query.content_type.trim().toLowerCase() }),
    words: artifactSearchWords(query.search),
    offset: pageOffset(query),
    limit: query.per_page,
  });
  return { artifacts: page.items.map(toSummary), total: page.total, page: query.page, per_page: query.per_page };
}

/** Every version, the current one first, then the kept ones newest first. */
export async function listVersions(
  deps: ArtifactDeps,
  actor: Actor,
  project: string,
  slug: string,
  page: { page: number; per_page: number },
) {
  const record = await findArtifact(deps, actor, project, slug);
  const offset = pageOffset(page);
  // The current version occupies position 0; kept versions follow.
  const kept = await deps.artifacts.listVersions(
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
}

export async function getVersion(
  deps: ArtifactDeps,
  actor: Actor,
  project: string,
  slug: string,
  version: number,
): Promise<ArtifactVersion> {
  const record = await findArtifact(deps, actor, project, slug);
  if (version === record.version) return toVersion(currentVersion(record), true);
  if (!Number.isInteger(version) || version < 1) throw new ValidationError({ version: 'Must be a positive integer' });
  const kept = await deps.artifacts.findVersion(actor.userId, record.id, version);
  if (!kept) throw new NotFoundError('Artifact version');
  return toVersion(kept, false);
}
