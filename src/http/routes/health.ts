import type { FastifyPluginAsync } from 'fastify';
import type { Container } from '../../container.js';
import { sendError } from '../errors.js';

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: storage answers too). */
export const healthRoutes =
  (container: Container): FastifyPluginAsync =>
  async (app) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
      try {
        await container.database.ping();
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        reply.header('retry-after', '5');
        return sendError(reply, 'service_unavailable', 'Storage is not reachable');
      }
    });
  };
