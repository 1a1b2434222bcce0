import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Container } from '../../../container.js';
import { boundedString } from '../../../domain/common/bounds.js';
import {
  createMemoryQuery,
  createMemoryWithLinksBody,
  listMemoriesQuery,
  memoryCreatedSchema,
  memoryListSchema,
  memorySchema,
  memoryWithMessageSchema,
  updateMemoryBody,
} from '../../../domain/memories/memory-schemas.js';
import { type AuthHookFactory, actorOf, keyAuth } from '../../auth.js';
import { authenticatedErrors, bodyErrors, errorSchema } from '../../openapi.js';
import { asZodApp, listRoute, messageSchema, operations } from '../operations.js';
import { memoryHistoryRoutes } from './memory-history.js';

const idParams = z.object({
  memory_id: boundedString(100, 'Not a valid id').min(1).meta({ description: 'The memory id (mem_…)' }),
});
const notFound = { 404: errorSchema.describe('No such memory for this user') };
const op = operations('memories');

/** `/api/v1/memories`: thin handlers over the memory service (the same one the MCP tools use). */
export const memoryRoutes =
  (container: Container, auth: AuthHookFactory = keyAuth(container.services.gate)): FastifyPluginAsync =>
  async (plugin) => {
    const app = asZodApp(plugin);
    const { memories } = container.services;
    app.addHook('onRequest', auth('memories'));

    listRoute(
      app,
      'memories',
      '/memories',
      {
        operationId: 'listMemories',
        summary: 'List or search memories',
        description:
          'Without `search`: newest `updated_at` first; `project_name` selects that project and its descendants. ' +
          'With `search` (even empty): ranked by keyword similarity, project proximity (the project, its descendants, ' +
          'its ancestors and global memories are candidates), priority and recency; each result has a `score`, and ' +
          '`explain=true` adds `score_parts`. Search results count as accessed.',
        querystring: listMemoriesQuery,
        page: memoryListSchema,
      },
      (actor, query) => memories.list(actor, query),
    );

    app.get(
      '/memories/:memory_id',
      op('getMemory', 'Read a memory (counts as an access)', {
        params: idParams,
        response: { 200: memorySchema, ...authenticatedErrors, ...notFound },
      }),
      async (request) => memories.get(actorOf(request), request.params.memory_id),
    );

    app.post(
      '/memories',
      op(
        'createMemory',
        'Create a memory (an identical one of the same project is answered instead: 200, deduped: true)',
        {
          querystring: createMemoryQuery,
          body: createMemoryWithLinksBody,
          response: {
            201: memoryCreatedSchema.describe('Created; possible_duplicates names similar memories when any'),
            200: memoryCreatedSchema.describe('An identical memory already existed (deduped: true); nothing created'),
            ...authenticatedErrors,
            ...bodyErrors,
          },
        },
      ),
      async (request, reply) => {
        const created = await memories.create(actorOf(request), request.body, { dedupe: request.query.dedupe });
        reply.code(created.deduped ? 200 : 201).header('location', `/api/v1/memories/${created.memory_id}`);
        return created;
      },
    );

    app.put(
      '/memories/:memory_id',
      op('updateMemory', 'Update a memory (partial; metadata as a JSON Merge Patch)', {
        params: idParams,
        body: updateMemoryBody,
        response: {
          200: memoryWithMessageSchema,
          ...authenticatedErrors,
          ...notFound,
          ...bodyErrors,
        },
      }),
      async (request) => memories.update(actorOf(request), request.params.memory_id, request.body),
    );

    app.delete(
      '/memories/:memory_id',
      op('deleteMemory', 'Delete a memory', {
        params: idParams,
        response: { 200: messageSchema, ...authenticatedErrors, ...notFound, ...bodyErrors },
      }),
      async (request) => memories.delete(actorOf(request), request.params.memory_id),
    );

    memoryHistoryRoutes(app, memories);
  };
