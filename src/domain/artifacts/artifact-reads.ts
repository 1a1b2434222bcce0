import type { Actor } from '../common/actor.js';
import { budgetedPage, checkBudget } from '../common/budget.js';
import { NotFoundError, ValidationError } from '../common/errors.js';
import { normaliseLabelFilter } from '../common/field-schemas.js';
import { listWindow, pageOffset, toolWindow } from '../common/pagination.js';
import { searchWords } from '../common/search-words.js';
import {
  artifactListItemPreview,
  currentVersion,
  toSummary,
  toVersion,
  toVersionSummary,
} from './artifact-presenter.js';
import { type ArtifactDeps, findArtifact } from './artifact-records.js';
import type {
  ArtifactIndexPage,
  ArtifactList,
  ArtifactListItem,
  ArtifactVersion,
  ListArtifactsQuery,
  VersionSummary,
} from './artifact-schemas.js';

/** Search words: runs of letters and digits, lowercased, bounded (search-words.ts); every one must occur. */
export const artifactSearchWords = (search: string | undefined): string[] => searchWords(search, 'letters');

/** What both lists filter on. */
export interface ArtifactFilter {
  project?: string | undefined;
  label: string[];
  content_type?: string | undefined;
  search?: string | undefined;
}

async function findPage(deps: ArtifactDeps, actor: Actor, filter: ArtifactFilter, offset: number, limit: number) {
  const page = await deps.artifacts.list(actor.userId, {
    ...(filter.project !== undefined && { projectTree: filter.project }),
    labels: normaliseLabelFilter(filter.label),
    ...(filter.content_type !== undefined && { contentType: filter.content_type.trim().toLowerCase() }),
    words: artifactSearchWords(filter.search),
    offset,
    limit,
  });
  return { items: page.items.map(toSummary) as ArtifactListItem[], total: page.total };
}

/** The REST list, from its `cursor` or `page`, within `max_chars` when given. */
export async function listArtifacts(
  deps: ArtifactDeps,
  actor: Actor,
  query: ListArtifactsQuery,
): Promise<ArtifactList> {
  checkBudget(query.max_chars);
  const { offset, page } = listWindow(query);
  const found = await findPage(deps, actor, query, offset, query.per_page);
  return budgetedPage({
    items: found.items,
    offset,
    more: offset + found.items.length < found.total,
    maxChars: query.max_chars,
    shape: artifactListItemPreview,
    answer: (artifacts, next_cursor) => ({
      artifacts,
      total: found.total,
      page,
      per_page: query.per_page,
      next_cursor,
    }),
  }).answer;
}

/** `svc_list_artifacts` and the context block: the list from `cursor`, at most `limit` within `max_chars`. */
export async function listArtifactIndex(
  deps: ArtifactDeps,
  actor: Actor,
  options: ArtifactFilter & { cursor?: number; limit: number; max_chars: number },
): Promise<ArtifactIndexPage> {
  checkBudget(options.max_chars);
  const offset = toolWindow(options.cursor, options.limit);
  const found = await findPage(deps, actor, options, offset, options.limit);
  return budgetedPage({
    items: found.items,
    offset,
    more: offset + found.items.length < found.total,
    maxChars: options.max_chars,
    shape: artifactListItemPreview,
    answer: (artifacts, next_cursor) => ({ artifacts, total: found.total, next_cursor }),
  }).answer;
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
