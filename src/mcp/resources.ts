import { ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { Container } from '../container.js';
import type { Actor } from '../domain/common/actor.js';
import { nextCursor } from '../domain/common/pagination.js';
import { offsetOfCursor } from './errors.js';

type Services = Container['services'];
const PAGE = 100;
const SCHEME = 'artifact://';

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'artifact://{project}/{slug}',
    name: 'artifact',
    title: 'Artifact',
    description: 'A saved document; the project may contain slashes (artifact://acme/backend/api-design).',
  },
];

/** `artifact://acme/backend/api-design` → project `acme/backend`, slug `api-design` (the last segment). */
export function parseArtifactUri(uri: string): { project: string; slug: string } | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const path = uri.slice(SCHEME.length);
  const cut = path.lastIndexOf('/');
  if (cut <= 0 || cut === path.length - 1) return undefined;
  try {
    return { project: decodeURIComponent(path.slice(0, cut)), slug: decodeURIComponent(path.slice(cut + 1)) };
  } catch {
    return undefined;
  }
}

export const artifactUri = (project: string, slug: string) => `${SCHEME}${project}/${slug}`;

export async function listResources(services: Services, actor: Actor, cursor: string | undefined) {
  const page = Math.floor(offsetOfCursor(cursor) / PAGE) + 1;
  const result = await services.artifacts.list(actor, { label: [], page, per_page: PAGE });
  const next = nextCursor((page - 1) * PAGE, PAGE, result.total);
  return {
    resources: result.artifacts.map((a) => ({
      uri: artifactUri(a.project, a.slug),
      name: `${a.project}/${a.slug}`,
      title: a.title,
      ...(a.description && { description: a.description }),
      mimeType: a.content_type,
      size: a.size_bytes,
    })),
    ...(next !== undefined && { nextCursor: next }),
  };
}

/** Echoed in errors at most this long: an address is at most ~300 characters, and a hostile one is not sent back whole. */
const shown = (uri: string) => (uri.length > 400 ? `${uri.slice(0, 400)}…` : uri);

/** `resources/read`'s answer to an address that is not one of the user's artifacts. */
export const resourceNotFound = (uri: string) =>
  new ResourceNotFoundError(shown(uri), `Artifact not found: ${shown(uri)}`);

export async function readResource(services: Services, actor: Actor, uri: string) {
  const address = uri.length <= 4000 ? parseArtifactUri(uri) : undefined;
  if (!address)
    throw new ResourceNotFoundError(
      shown(uri),
      `Not an artifact URI: ${shown(uri)} (expected artifact://{project}/{slug})`,
    );
  const artifact = await services.artifacts.get(actor, address.project, address.slug);
  return { contents: [{ uri, mimeType: artifact.content_type, text: artifact.content }] };
}
