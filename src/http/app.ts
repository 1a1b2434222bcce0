import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Container } from '../container.js';
import { NO_CHANGE_STAMP } from '../domain/common/fresh-cache.js';
import { checkInput } from '../domain/common/validation.js';
import { registerDashboard } from './dashboard-static.js';
import { handleError, RequestValidationError, sendError, sendNoRoute } from './errors.js';
import { createJsonWriter } from './frozen-json.js';
import { type HotReadStats, installHotReads } from './hot-reads.js';
import { registerMethodNotAllowed } from './method-not-allowed.js';
import { registerOpenApi } from './openapi.js';
import { registerRequestBudget } from './request-budget.js';
import { requestIdOf } from './request-id.js';
import { registerRequestLog } from './request-log.js';
import { DASHBOARD_API, dashboardRoutes } from './routes/dashboard/index.js';
import { healthRoutes } from './routes/health.js';
import { mcpRoutes } from './routes/mcp.js';
import { artifactRoutes } from './routes/v1/artifacts.js';
import { auditRoutes } from './routes/v1/audit.js';
import { bundleRoutes } from './routes/v1/bundles.js';
import { contextRoutes } from './routes/v1/context.js';
import { meRoutes } from './routes/v1/me.js';
import { memoryRoutes } from './routes/v1/memories.js';
import { memoryBatchRoutes } from './routes/v1/memory-batch.js';
import { promptRoutes } from './routes/v1/prompts.js';
import { webhookRoutes } from './routes/v1/webhooks.js';
import { closeIfBodyUnread, requestBudgets, sendTimeout, serverTimeoutOptions } from './timeouts.js';

const MAX_PATH_PARAM = 1000;
const ROUTER_OPTIONS = { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM };

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** The hot read outside Fastify (hot-reads.ts) where the configuration allows it; on by default. */
  hotReads?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** What the hot read answered and declined; absent when it is not installed. */
    hotReads?: HotReadStats;
  }
}

/** Builds the HTTP application around a finished container; `listen` is the caller's business. */
export async function buildApp(container: Container, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = container;
  const { trustProxy } = config;
  const app = Fastify({
    // One logger for the process (credentials redacted, see logger.ts); tests pass `logger: false`.
    ...(options.logger === undefined
      ? { loggerInstance: container.logger as unknown as FastifyBaseLogger }
      : { logger: options.logger }),
    // A hop count becomes proxy-addr's own rule (trust the nearest n hops), which Fastify's types lack.
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy,
    // Slow clients and slow requests: headers, per-request budget, idle and keep-alive (timeouts.ts).
    ...serverTimeoutOptions(config.timeouts),
    bodyLimit: config.bodyLimitBytes,
    // Per-request lines are request-log.ts's: slow requests only, the rest at debug.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: (request) => requestIdOf(request.headers),
    // Deep JSON is parsed iteratively by V8; prototype-poisoning keys are refused (400).
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Path parameters are bounded by the route schemas (a project name is up to 200 characters, three
    // times longer once its slashes are percent-encoded); the router's own cap only stops absurd ones.
    routerOptions: ROUTER_OPTIONS,
    // Errors the router raises before any route runs get the contract's error shape too (Fastify's
    // default body echoes the URL in its own shape).
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? sendError(reply, 'validation_error', 'Request validation failed', {
            details: { path: `A path segment is longer than ${MAX_PATH_PARAM} characters` },
          })
        : sendError(reply, 'validation_error', 'Request validation failed', {
            details: { path: 'The URL is not valid (malformed percent-encoding)' },
          });
    },
  }).withTypeProvider<ZodTypeProvider>();

  // Only JSON bodies: dropping the text/plain parser makes every other type a 415. An empty JSON body
  // (common on DELETE from generic clients) is no body; routes that need one say so in validation.
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : parseJson(request, body as string, done),
  );

  app.setValidatorCompiler<z.ZodType>(({ schema, httpPart }) => (data) => {
    const result = checkInput(schema, data, httpPart === 'body' ? 'body' : (httpPart ?? 'request'));
    return result.success ? { value: result.data } : { error: new RequestValidationError(result.details) };
  });
  // Plain JSON serialisation (services build their answers field by field); a frozen answer's text is kept.
  const json = createJsonWriter();
  app.setSerializerCompiler(() => json.stringify);

  // A callback hook: an async one costs a promise and a microtask on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerRequestBudget(app, { ...requestBudgets(config.timeouts), onExpired: sendTimeout });
  app.addHook('onSend', closeIfBodyUnread);
  registerRequestLog(app, config.slowRequestMs);
  app.setErrorHandler((error: Error, request, reply) => handleError(error, request, reply));
  app.setNotFoundHandler(sendNoRoute);

  const routes = registerMethodNotAllowed(app);
  await registerOpenApi(app, { routerOptions: ROUTER_OPTIONS });
  await app.register(healthRoutes(container));
  await app.register(promptRoutes(container), { prefix: '/api/v1' });
  await app.register(memoryRoutes(container), { prefix: '/api/v1' });
  await app.register(memoryBatchRoutes(container), { prefix: '/api/v1' });
  await app.register(artifactRoutes(container), { prefix: '/api/v1' });
  await app.register(bundleRoutes(container), { prefix: '/api/v1' });
  await app.register(meRoutes(container), { prefix: '/api/v1' });
  await app.register(contextRoutes(container), { prefix: '/api/v1' });
  await app.register(auditRoutes(container), { prefix: '/api/v1' });
  await app.register(webhookRoutes(container), { prefix: '/api/v1' });
  await app.register(mcpRoutes(container));
  await app.register(dashboardRoutes(container), { prefix: DASHBOARD_API });
  await registerDashboard(app);
  await app.after();
  routes.finish();
  const level = app.log.level;
  // Keys and counts from memory where both can be (SQLite, in-process counters); else each request's key is
  // read and its admission counted through stores that batch a turn's requests (PostgreSQL, Redis).
  const changeStamp = container.database.changeStamp;
  const inMemory = changeStamp !== NO_CHANGE_STAMP && container.counters.admitNow !== undefined;
  const logsEveryRequest = level === 'debug' || level === 'trace';
  if (options.hotReads !== false && !trustProxy && !logsEveryRequest) {
    app.hotReads = installHotReads(app.server, {
      gate: container.services.gate,
      prompts: container.services.prompts,
      way: inMemory
        ? { kind: 'in-memory', changeStamp }
        : { kind: 'looked-up', budgetMs: requestBudgets(config.timeouts).defaultMs },
      json,
      logger: app.log as unknown as Logger,
      slowRequestMs: config.slowRequestMs,
    });
  }
  return app;
}
