import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifySchema } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Container } from '../../container.js';
import type { Actor } from '../../domain/common/actor.js';
import { boundedString } from '../../domain/common/bounds.js';
import { etagOf } from '../../domain/common/etag.js';
import { type AuthHookFactory, actorOf, keyAuth, type SurfaceFor } from '../auth.js';
import { authenticatedErrors } from '../openapi.js';

/** The zod-typed view of a route plugin's app: schemas validate input and type the handlers. */
export const asZodApp = (plugin: FastifyInstance) => plugin.withTypeProvider<ZodTypeProvider>();
export type ZodApp = ReturnType<typeof asZodApp>;

/**
 * A REST resource's route plugin: API-key auth for `surface` by default (the dashboard mounts the same plugin
 * with its session auth), then `register` adds the routes to the zod-typed app.
 */
export const restResource =
  (surface: SurfaceFor, register: (app: ZodApp, container: Container) => void | Promise<void>) =>
  (container: Container, auth: AuthHookFactory = keyAuth(container.services.gate)): FastifyPluginAsync =>
  async (plugin) => {
    const app = asZodApp(plugin);
    // Each route gets the auth hook of its own surface, decided once here rather than per request.
    plugin.addHook('onRoute', (route) => {
      const surfaces = new Set(
        [route.method].flat().map((method) => (typeof surface === 'function' ? surface(method, route.url) : surface)),
      );
      const [only] = surfaces;
      const hook = surfaces.size === 1 && only !== undefined ? auth(only) : auth(surface);
      route.onRequest = [hook, ...[route.onRequest ?? []].flat()];
    });
    await register(app, container);
  };

/**
 * The route options of one operation of the OpenAPI document: its tag, id and summary, then the rest of its
 * schema as given (params, query, headers, body, answers). Built per resource: `const op = operations('prompts')`.
 */
export const operations =
  (tag: string) =>
  <S extends FastifySchema>(operationId: string, summary: string, schema: S) => ({
    schema: { tags: [tag], operationId, summary, ...schema },
  });

/** Answers `written` with its version as the `ETag`, for `If-Match` on the next write. */
export function withEtag<T extends { version: number }>(reply: FastifyReply, written: T): T {
  reply.header('etag', etagOf(written.version));
  return written;
}

/** A version number in a path (`…/versions/:n`): a positive integer, as a number. */
export const versionNumber = (message: string, description: string) =>
  boundedString(10, message)
    .regex(/^[1-9]\d{0,8}$/, message)
    .transform(Number)
    .meta({ description });

/** A `{message}` answer (a delete, a sign-out, a password change). */
export const messageSchema = z.object({ message: z.string() });

/** A list operation: a query in, one page of results out, the failures any authenticated read has. */
export interface ListOperation<Q extends z.ZodType, P extends z.ZodType> {
  operationId: string;
  summary: string;
  description?: string;
  /** For a list under one resource (its versions, its referrers). */
  params?: P;
  querystring: Q;
  page: z.ZodType;
  /** The answer when the resource named by `params` is not there. */
  missing?: { 404: z.ZodType };
}

/**
 * `GET url`: lists with `list(actor, query, params)`. The one shape of every list route (prompts, memories,
 * artifacts, and the versions and referrers of one), so their schemas and handlers cannot drift apart.
 */
export function listRoute<Q extends z.ZodType, P extends z.ZodType = z.ZodType<undefined>>(
  app: ZodApp,
  tag: string,
  url: string,
  { page, missing, ...operation }: ListOperation<Q, P>,
  list: (actor: Actor, query: z.output<Q>, params: z.output<P>) => Promise<unknown>,
) {
  app.get(
    url,
    { schema: { tags: [tag], ...operation, response: { 200: page, ...authenticatedErrors, ...missing } } },
    async (request) => list(actorOf(request), request.query as z.output<Q>, request.params as z.output<P>),
  );
}
