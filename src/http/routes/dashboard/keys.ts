import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Container } from '../../../container.js';
import { createKeyInput } from '../../../domain/accounts/account-schemas.js';
import {
  apiKeyViewSchema,
  createdKeySchema,
  keyListSchema,
  usageQuery,
  usageSchema,
} from '../../../domain/accounts/view-schemas.js';
import { actorOf } from '../../auth.js';
import { bodyErrors, errorSchema } from '../../openapi.js';
import { messageSchema } from '../operations.js';
import { dashboardErrors, dashboardInputErrors, type IdParams } from './schemas.js';
import { sessionHook } from './session.js';

const noSuchKey = { 404: errorSchema.describe('No such key for this user (not_found)') };

/** Settings → API keys, and usage. Only a dashboard session can manage keys (api-decisions §3). */
export const keyRoutes =
  (container: Container): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<ZodTypeProvider>();
    const { keys, usage } = container.services;
    app.addHook('onRequest', sessionHook(container, true));

    app.get('/keys', { schema: { response: { 200: keyListSchema, ...dashboardErrors } } }, async (request) => ({
      keys: await keys.list(actorOf(request)),
    }));
    app.post(
      '/keys',
      { schema: { body: createKeyInput, response: { 201: createdKeySchema, ...dashboardInputErrors, ...bodyErrors } } },
      async (request, reply) => reply.code(201).send(await keys.create(actorOf(request), request.body)),
    );
    app.post<IdParams>(
      '/keys/:id/revoke',
      { schema: { response: { 200: apiKeyViewSchema, ...dashboardInputErrors, ...noSuchKey } } },
      async (request) => keys.revoke(actorOf(request), request.params.id),
    );
    app.delete<IdParams>(
      '/keys/:id',
      {
        schema: {
          response: { 200: messageSchema, ...dashboardInputErrors, ...noSuchKey, ...bodyErrors },
        },
      },
      async (request) => {
        await keys.delete(actorOf(request), request.params.id);
        return { message: 'API key deleted' };
      },
    );

    app.get(
      '/usage',
      { schema: { querystring: usageQuery, response: { 200: usageSchema, ...dashboardInputErrors } } },
      async (request) => usage.usage(actorOf(request), request.query.hours),
    );
  };
