import type { FastifyPluginAsync } from 'fastify';
import type { Container } from '../../../container.js';
import { actorOf } from '../../auth.js';
import { sessionHook } from './session.js';

/** Settings → API keys, and usage. Only a dashboard session can manage keys (api-decisions §3). */
export const keyRoutes =
  (container: Container): FastifyPluginAsync =>
  async (app) => {
    const { keys, usage } = container.services;
    app.addHook('onRequest', sessionHook(container, true));

    app.get('/keys', async (request) => ({ keys: await keys.list(actorOf(request)) }));
    app.post('/keys', async (request, reply) =>
      reply.code(201).send(await keys.create(actorOf(request), request.body as never)),
    );
    app.post<{ Params: { id: string } }>('/keys/:id/revoke', async (request) =>
      keys.revoke(actorOf(request), request.params.id),
    );
    app.delete<{ Params: { id: string } }>('/keys/:id', async (request) => {
      await keys.delete(actorOf(request), request.params.id);
      return { message: 'API key deleted' };
    });

    app.get<{ Querystring: { hours?: string } }>('/usage', async (request) => {
      const hours = Math.min(168, Math.max(1, Number.parseInt(request.query.hours ?? '48', 10) || 48));
      return usage.usage(actorOf(request), hours);
    });
  };
