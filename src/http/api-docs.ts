import Fastify, {
  type FastifyInstance,
  type FastifyPluginCallback,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { handleError, sendNoRoute } from './errors.js';

/**
 * The browsable API reference (Swagger UI) at `/api/v1/docs`, loaded on its first request.
 *
 * Why: `@fastify/swagger-ui` and what it requires (`@fastify/static`, `glob`, `send`, `yaml`, …) are CommonJS
 * packages outside the bundle, resolved and compiled one file at a time: 45–140 ms of every start
 * (docs/performance.md, session 15), for a page few requests ever ask for (issue 15: start ≤ 1 s).
 *
 * How: the server registers the routes Swagger UI has (the same paths, so the 405s, the route list and the
 * fuzz suite do not change) with a handler that builds, once, a small Fastify instance holding Swagger UI
 * and hands it the raw request (`routing`). That instance serves the main server's own OpenAPI document
 * (`app.swagger()`), and answers a missing file or a failure in the contract's error shape, with the
 * request's `X-Request-Id`.
 */
const PREFIX = '/api/v1/docs';
/** Swagger UI's routes under its prefix (`@fastify/swagger-ui` 5: its page, the document, its files); `/` is `''` (ignoreTrailingSlash). */
const ROUTES = ['', '/json', '/yaml', '/static/index.html', '/static/swagger-initializer.js', '/*'];

export interface ApiDocsOptions {
  /** The main server's router options, so that the docs instance matches the URLs it is handed alike. */
  routerOptions: { ignoreTrailingSlash: boolean; maxParamLength: number };
}

export function registerApiDocs(app: FastifyInstance, { routerOptions }: ApiDocsOptions): void {
  let docs: Promise<FastifyInstance> | undefined;

  async function load(): Promise<FastifyInstance> {
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    const instance = Fastify({ logger: false, routerOptions });
    // Swagger UI asks for `@fastify/swagger` by name and calls `swagger()`: the main server's document.
    const documents: FastifyPluginCallback = (scope, _options, done) => {
      scope.decorate('swagger', ((options?: { yaml?: boolean }) => app.swagger(options as never)) as never);
      done();
    };
    Object.assign(documents, {
      [Symbol.for('skip-override')]: true,
      [Symbol.for('plugin-meta')]: { name: '@fastify/swagger' },
    });
    await instance.register(documents);
    await instance.register(swaggerUi, { routePrefix: PREFIX, uiConfig: { docExpansion: 'list' } });
    instance.setNotFoundHandler(sendNoRoute);
    instance.setErrorHandler(handleError);
    await instance.ready();
    return instance;
  }

  async function forward(request: FastifyRequest, reply: FastifyReply) {
    docs ??= load().catch((error: unknown) => {
      docs = undefined; // the next request tries again
      throw error;
    });
    const instance = await docs;
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    instance.routing(request.raw, reply.raw);
  }

  for (const route of ROUTES) app.get(`${PREFIX}${route}`, { schema: { hide: true } }, forward);
}
