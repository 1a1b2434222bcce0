import { z } from 'zod';
import type { Container } from '../../../container.js';
import { MAX_PROMPT_ENVIRONMENTS } from '../../../contract/index.js';
import type { Actor } from '../../../domain/common/actor.js';
import { boundedString } from '../../../domain/common/bounds.js';
import {
  createPromptBody,
  environmentNameSchema,
  environmentQuery,
  listPromptsQuery,
  listVersionsQuery,
  promptCreatedSchema,
  promptEnvironmentListSchema,
  promptEnvironmentSetSchema,
  promptListSchema,
  promptSchema,
  promptUpdatedSchema,
  promptVersionListSchema,
  promptVersionSchema,
  referencedByQuery,
  renderPromptBody,
  renderResultSchema,
  restorePromptBody,
  setEnvironmentBody,
  updatePromptBody,
} from '../../../domain/prompts/prompt-schemas.js';
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

const idOrSlugParams = z.object({
  id_or_slug: boundedString(200, 'Not a valid id or slug')
    .min(1)
    .meta({ description: 'The prompt id (prm_…) or its slug' }),
});
const versionParams = idOrSlugParams.extend({
  version: versionNumber('version must be a positive integer', 'The version number (1 is the first)'),
});
const environmentParams = idOrSlugParams.extend({
  name: environmentNameSchema.meta({ description: 'The environment (e.g. `production`): the slug rules' }),
});
const ifMatchHeaders = z.looseObject({
  'if-match': boundedString(1000, 'If-Match must be at most 1,000 characters')
    .optional()
    .meta({ description: 'Only if the prompt is still at this version: `"<version>"`' }),
});
const notFound = { 404: errorSchema.describe('No such prompt for this user') };
const noVersion = { 404: errorSchema.describe('No such prompt or version') };
const noEnvironment = { 404: errorSchema.describe('No such prompt, or the prompt has no such environment') };
/** Render is a POST that reads: it needs only the read surface (a marketplace key may render). */
const surfaceOf = (method: string, route: string) =>
  method === 'GET' || method === 'HEAD' || route.endsWith('/render') ? 'prompts.read' : 'prompts.write';

type Prompts = Container['services']['prompts'];
const op = operations('prompts');

/** `/api/v1/prompts`: thin handlers, one service call each. */
export const promptRoutes = restResource(surfaceOf, (app, { services: { prompts } }) => {
  promptReads(app, prompts);
  promptWrites(app, prompts);
  promptHistory(app, prompts);
  promptEnvironments(app, prompts);
  promptRendering(app, prompts);
});

function promptReads(app: ZodApp, prompts: Prompts) {
  listRoute(
    app,
    'prompts',
    '/prompts',
    {
      operationId: 'listPrompts',
      summary: 'List prompts',
      description:
        'Newest `updated_at` first. `search` matches every whitespace-separated term (case-insensitive) in title, description or content; repeated `label` parameters must all match.',
      querystring: listPromptsQuery,
      page: promptListSchema,
    },
    (actor, query) => prompts.list(actor, query),
  );

  app.get(
    '/prompts/:id_or_slug',
    op('getPrompt', 'Read a prompt', {
      description:
        'With its current `version` (also the `ETag`, for `If-Match` on update) and `broken_references`: references whose target prompt does not exist. With `environment`, the version that environment points to (and `environment` in the answer, no `ETag`); 404 when the prompt has no such environment.',
      params: idOrSlugParams,
      querystring: environmentQuery,
      response: { 200: promptSchema, ...authenticatedErrors, ...noEnvironment },
    }),
    async (request, reply) => {
      const prompt = await prompts.get(actorOf(request), request.params.id_or_slug, request.query.environment);
      // An environment's version is not the one If-Match on update compares with: no ETag for it.
      return prompt.environment === undefined ? withEtag(reply, prompt) : prompt;
    },
  );
}

function promptWrites(app: ZodApp, prompts: Prompts) {
  app.post(
    '/prompts',
    op('createPrompt', 'Create a prompt', {
      body: createPromptBody,
      response: {
        201: promptCreatedSchema,
        ...authenticatedErrors,
        409: errorSchema.describe('The slug is already in use (conflict)'),
        ...bodyErrors,
      },
    }),
    async (request, reply) => {
      const created = await prompts.create(actorOf(request), request.body);
      reply.code(201).header('location', `/api/v1/prompts/${created.id}`);
      return created;
    },
  );

  newVersionRoute(
    app,
    'PUT',
    '/prompts/:id_or_slug',
    {
      operationId: 'updatePrompt',
      summary: 'Update a prompt (partial)',
      description:
        'Only supplied fields change; the slug cannot be changed. A change of title, description, content, labels or variable_schema stores a new version (with the optional `commit_message`); supplying values equal to the current ones changes nothing. With `If-Match: "<version>"` the update is refused with 412 unless that is still the current version.',
      body: updatePromptBody,
      missing: notFound,
    },
    prompts.update,
  );

  app.delete(
    '/prompts/:id_or_slug',
    op('deletePrompt', 'Delete a prompt', {
      description: 'Permanent. Other prompts that reference this one keep their (now broken) references.',
      params: idOrSlugParams,
      response: { 200: messageSchema, ...authenticatedErrors, ...notFound, ...bodyErrors },
    }),
    async (request) => prompts.delete(actorOf(request), request.params.id_or_slug),
  );
}

function promptHistory(app: ZodApp, prompts: Prompts) {
  listRoute(
    app,
    'prompts',
    '/prompts/:id_or_slug/versions',
    {
      operationId: 'listPromptVersions',
      summary: 'List the versions of a prompt',
      description: 'Newest first, without content (read one version for it).',
      params: idOrSlugParams,
      querystring: listVersionsQuery,
      page: promptVersionListSchema,
      missing: notFound,
    },
    (actor, query, params) => prompts.versions(actor, params.id_or_slug, query),
  );

  app.get(
    '/prompts/:id_or_slug/versions/:version',
    op('getPromptVersion', 'Read one version of a prompt', {
      params: versionParams,
      response: { 200: promptVersionSchema, ...authenticatedErrors, ...noVersion },
    }),
    async (request) => prompts.version(actorOf(request), request.params.id_or_slug, request.params.version),
  );

  newVersionRoute(
    app,
    'POST',
    '/prompts/:id_or_slug/restore',
    {
      operationId: 'restorePromptVersion',
      summary: 'Restore a version',
      description:
        'Stores a new version equal to version `version` (title, description, content, labels, variable_schema); the history is kept. Accepts `If-Match` like update.',
      body: restorePromptBody,
      missing: noVersion,
    },
    prompts.restore,
  );
}

function promptEnvironments(app: ZodApp, prompts: Prompts) {
  app.get(
    '/prompts/:id_or_slug/environments',
    op('listPromptEnvironments', 'List the environments of a prompt', {
      description: `Every environment (named pointer to a version) of the prompt, by name; at most ${MAX_PROMPT_ENVIRONMENTS}, so not paged.`,
      params: idOrSlugParams,
      response: { 200: promptEnvironmentListSchema, ...authenticatedErrors, ...notFound },
    }),
    async (request) => prompts.environments(actorOf(request), request.params.id_or_slug),
  );

  app.put(
    '/prompts/:id_or_slug/environments/:name',
    op('setPromptEnvironment', 'Point an environment at a version', {
      description: `Creates the environment or moves it to \`version\`. Reads and renders with \`?environment=<name>\` then serve that version. A version the prompt does not have is a 400 (\`details.version\`); a prompt has at most ${MAX_PROMPT_ENVIRONMENTS} environments. \`marketplace: true\` makes this the pointer marketplace-only keys see the prompt through (docs/api.md).`,
      params: environmentParams,
      body: setEnvironmentBody,
      response: { 200: promptEnvironmentSetSchema, ...authenticatedErrors, ...notFound, ...bodyErrors },
    }),
    async (request) =>
      prompts.setEnvironment(actorOf(request), request.params.id_or_slug, request.params.name, request.body),
  );

  app.delete(
    '/prompts/:id_or_slug/environments/:name',
    op('removePromptEnvironment', 'Remove an environment', {
      description: 'The version it pointed to stays in the history.',
      params: environmentParams,
      response: { 200: messageSchema, ...authenticatedErrors, ...noEnvironment, ...bodyErrors },
    }),
    async (request) => prompts.removeEnvironment(actorOf(request), request.params.id_or_slug, request.params.name),
  );
}

function promptRendering(app: ZodApp, prompts: Prompts) {
  app.post(
    '/prompts/:id_or_slug/render',
    op('renderPrompt', 'Render a prompt', {
      description:
        "`@references` expand recursively (at most 5 deep; a cycle, a missing target or deeper nesting is a 400 naming the chain). Variables take the supplied value, else their default, else empty when optional. Strict mode (the default) refuses missing required and unknown variables; otherwise missing ones stay as written. A value outside a variable's `enum` is always refused. The rendered text is at most `RENDER_MAX_CHARS` characters (default 1,000,000), counted while it is built: past it, a 400 naming the reference chain (or the variable). The same function serves MCP `prompts/get` and `svc_get_prompt` (not strict; there a reference that cannot be expanded stays as written).",
      params: idOrSlugParams,
      querystring: environmentQuery,
      body: renderPromptBody,
      response: { 200: renderResultSchema, ...authenticatedErrors, ...noEnvironment, ...bodyErrors },
    }),
    async (request) => {
      // Strict: a broken reference is an error here, so there is never a `references_broken` to show.
      const {
        prompt: _prompt,
        references_broken: _none,
        ...result
      } = await prompts.render(actorOf(request), request.params.id_or_slug, request.body, {
        environment: request.query.environment,
      });
      return result;
    },
  );

  listRoute(
    app,
    'prompts',
    '/prompts/:id_or_slug/referenced-by',
    {
      operationId: 'listPromptReferrers',
      summary: 'List the prompts that reference this one',
      description: 'Prompts whose content contains `@<this slug>`, newest `updated_at` first.',
      params: idOrSlugParams,
      querystring: referencedByQuery,
      page: promptListSchema,
      missing: notFound,
    },
    (actor, query, params) => prompts.referencedBy(actor, params.id_or_slug, query),
  );
}

/**
 * A write that stores a new version (update, restore): `If-Match` in, the new version's `ETag` out; refused
 * on a stale `If-Match` (412) or when the prompt keeps changing under it (409).
 */
function newVersionRoute<B extends z.ZodType>(
  app: ZodApp,
  method: 'PUT' | 'POST',
  url: string,
  {
    body,
    missing,
    ...operation
  }: { operationId: string; summary: string; description: string; body: B; missing: typeof notFound },
  write: (
    actor: Actor,
    idOrSlug: string,
    body: z.output<B>,
    ifMatch: string | undefined,
  ) => Promise<z.output<typeof promptUpdatedSchema>>,
) {
  app.route({
    method,
    url,
    schema: {
      tags: ['prompts'],
      ...operation,
      params: idOrSlugParams,
      headers: ifMatchHeaders,
      body,
      response: {
        200: promptUpdatedSchema,
        ...authenticatedErrors,
        ...missing,
        409: errorSchema.describe('The prompt kept changing concurrently (conflict)'),
        412: errorSchema.describe('If-Match does not match the current version'),
        ...bodyErrors,
      },
    },
    handler: async (request, reply) =>
      withEtag(
        reply,
        await write(
          actorOf(request),
          request.params.id_or_slug,
          request.body as z.output<B>,
          request.headers['if-match'],
        ),
      ),
  });
}
