import { z } from 'zod';
import type { Container } from '../../../container.js';
import {
  artifactListSchema,
  artifactSchema,
  artifactWrittenSchema,
  createArtifactBody,
  listArtifactsQuery,
  listVersionsQuery,
  updateArtifactBody,
  versionListSchema,
  versionSchema,
} from '../../../domain/artifacts/artifact-schemas.js';
import { boundedString } from '../../../domain/common/bounds.js';
import { actorOf } from '../../auth.js';
import { authenticatedErrors, bodyErrors, errorSchema } from '../../openapi.js';
import {
  listRoute,
  messageSchema,
  operations,
  restResource,
  versionNumber,
  withEtag,
  type ZodApp,
} from '../operations.js';

const address = {
  project: boundedString(200, 'Project name must be at most 200 characters')
    .min(1)
    .meta({ description: 'Project name; a `/` inside it is percent-encoded (%2F)' }),
  slug: boundedString(100, 'Slug must be at most 100 characters').min(1),
};
const addressParams = z.object(address);
const versionParams = z.object({
  ...address,
  n: versionNumber('Version must be a positive integer', 'Version number'),
});
const notFound = { 404: errorSchema.describe('No such artifact for this user') };
const tooLarge = { 413: errorSchema.describe('Body or content over the size limit (payload_too_large)') };
const encodePath = (project: string, slug: string) =>
  `/api/v1/artifacts/${encodeURIComponent(project)}/${encodeURIComponent(slug)}`;

type Artifacts = Container['services']['artifacts'];
const op = operations('artifacts');

/** `/api/v1/artifacts`: documents addressed by project and slug, with versions and If-Match. */
export const artifactRoutes = restResource('artifacts', (app, { services: { artifacts }, config }) => {
  // JSON escaping can double the size of text; the content limit itself is checked by the service (413).
  const bodyLimit = config.artifacts.maxContentBytes * 2 + 1024 * 1024;
  artifactReads(app, artifacts);
  artifactWrites(app, artifacts, bodyLimit);
  artifactHistory(app, artifacts);
});

function artifactReads(app: ZodApp, artifacts: Artifacts) {
  listRoute(
    app,
    'artifacts',
    '/artifacts',
    {
      operationId: 'listArtifacts',
      summary: 'List artifacts (without content)',
      description:
        'Newest `updated_at` first. `project` selects that project and its descendants; repeated `label` must all match; `search` requires every word in the title, description or content.',
      querystring: listArtifactsQuery,
      page: artifactListSchema,
    },
    (actor, query) => artifacts.list(actor, query),
  );

  app.get(
    '/artifacts/:project/:slug',
    op('getArtifact', 'Read an artifact', {
      description: 'The `ETag` header is `"<version>"`, for `If-Match` on update.',
      params: addressParams,
      response: { 200: artifactSchema, ...authenticatedErrors, ...notFound },
    }),
    async (request, reply) =>
      withEtag(reply, await artifacts.get(actorOf(request), request.params.project, request.params.slug)),
  );

  app.get(
    '/artifacts/:project/:slug/raw',
    op('getArtifactContent', 'Read an artifact’s content alone, with its own content type', {
      params: addressParams,
      response: {
        200: {
          description:
            'The content, served with the artifact’s `content_type` (`; charset=utf-8` added when it names no charset), `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy`',
          content: { '*/*': { schema: z.string().meta({ description: 'The content as stored' }) } },
        },
        ...authenticatedErrors,
        ...notFound,
      },
    }),
    async (request, reply) => {
      const artifact = withEtag(
        reply,
        await artifacts.get(actorOf(request), request.params.project, request.params.slug),
      );
      const type = artifact.content_type.includes('charset=')
        ? artifact.content_type
        : `${artifact.content_type}; charset=utf-8`;
      // Stored content is served as data, never as an active document of this origin.
      reply
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "sandbox; default-src 'none'")
        .type(type);
      return reply.serializer((payload: unknown) => String(payload)).send(artifact.content);
    },
  );
}

function artifactWrites(app: ZodApp, artifacts: Artifacts, bodyLimit: number) {
  app.post(
    '/artifacts',
    {
      bodyLimit,
      ...op('createArtifact', 'Create an artifact', {
        body: createArtifactBody,
        response: {
          201: artifactWrittenSchema,
          ...authenticatedErrors,
          409: errorSchema.describe('The slug is already in use in this project (conflict)'),
          ...bodyErrors,
          ...tooLarge,
        },
      }),
    },
    async (request, reply) => {
      const created = await artifacts.create(actorOf(request), request.body);
      return withEtag(reply.code(201).header('location', encodePath(created.project, created.slug)), created);
    },
  );

  app.put(
    '/artifacts/:project/:slug',
    {
      bodyLimit,
      ...op('updateArtifact', 'Update an artifact (partial)', {
        description:
          '`version` goes up by one when `content` changes, and the previous content is kept as a version. With `If-Match: "<version>"` the update is refused with 412 unless that is still the current version.',
        params: addressParams,
        headers: z.looseObject({
          'if-match': boundedString(1000, 'If-Match must be at most 1,000 characters').optional(),
        }),
        body: updateArtifactBody,
        response: {
          200: artifactWrittenSchema,
          ...authenticatedErrors,
          ...notFound,
          412: errorSchema.describe('If-Match does not match the current version (precondition_failed)'),
          ...bodyErrors,
          ...tooLarge,
        },
      }),
    },
    async (request, reply) => {
      const { project, slug } = request.params;
      const ifMatch = request.headers['if-match'];
      return withEtag(reply, await artifacts.update(actorOf(request), project, slug, request.body, ifMatch));
    },
  );

  app.delete(
    '/artifacts/:project/:slug',
    op('deleteArtifact', 'Delete an artifact and its versions', {
      params: addressParams,
      response: { 200: messageSchema, ...authenticatedErrors, ...notFound, ...bodyErrors },
    }),
    async (request) => artifacts.delete(actorOf(request), request.params.project, request.params.slug),
  );
}

function artifactHistory(app: ZodApp, artifacts: Artifacts) {
  listRoute(
    app,
    'artifacts',
    '/artifacts/:project/:slug/versions',
    {
      operationId: 'listArtifactVersions',
      summary: 'List an artifact’s versions, newest first (the current one included)',
      params: addressParams,
      querystring: listVersionsQuery,
      page: versionListSchema,
      missing: notFound,
    },
    (actor, query, { project, slug }) => artifacts.versions(actor, project, slug, query),
  );

  app.get(
    '/artifacts/:project/:slug/versions/:n',
    op('getArtifactVersion', 'Read one version of an artifact', {
      params: versionParams,
      response: { 200: versionSchema, ...authenticatedErrors, ...notFound },
    }),
    async (request) =>
      artifacts.version(actorOf(request), request.params.project, request.params.slug, request.params.n),
  );
}
