import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Container } from '../../../container.js';
import { boundedString } from '../../../domain/common/bounds.js';
import {
  createMemoryBody,
  listMemoriesQuery,
  memoryListSchema,
  memorySchema,
  memoryWithMessageSchema,
  updateMemoryBody,
} from '../../../domain/memories/memory-schemas.js';
import { type AuthHookFactory, actorOf, keyAuth } from '../../auth.js';
import { authenticatedErrors, bodyErrors, errorSchema } from '../../openapi.js';

const idParams = z.object({
  memory_id: boundedString(100, 'Not a valid id').min(1).meta({ description: 'The memory id (mem_…)' }),
});
const notFound = { 404: errorSchema.describe('No such memory for this user') };

/** `/api/v1/memories`: thin handlers over the memory service (the same one the MCP tools use). */
export const memoryRoutes =
  (container: Container, auth: AuthHookFactory = keyAuth(container.services.gate)): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<ZodTypeProvider>();
    const { memories } = container.services;
    app.addHook('onRequest', auth('memories'));

    app.get(
      '/memories',
      {
        schema: {
          tags: ['memories'],
          operationId: 'listMemories',
          summary: 'List or search memories',
          description:
            'Without `search`: newest `updated_at` first; `project_name` selects that project and its descendants. ' +
            'With `search` (even empty): ranked by keyword similarity, project proximity (the project, its descendants, ' +
            'its ancestors and global memories are candidates), priority and recency; each result has a `score`, and ' +
            '`explain=true` adds `score_parts`. Search results count as accessed.',
          querystring: listMemoriesQuery,
          response: { 200: memoryListSchema, ...authenticatedErrors },
        },
      },
      async (request) => memories.list(actorOf(request), request.query),
    );

    app.get(
      '/memories/:memory_id',
      {
        schema: {
          tags: ['memories'],
          operationId: 'getMemory',
          summary: 'Read a memory (counts as an access)',
          params: idParams,
          response: { 200: memorySchema, ...authenticatedErrors, ...notFound },
        },
      },
      async (request) => memories.get(actorOf(request), request.params.memory_id),
    );

    app.post(
      '/memories',
      {
        schema: {
          tags: ['memories'],
          operationId: 'createMemory',
          summary: 'Create a memory',
          body: createMemoryBody,
          response: { 201: memoryWithMessageSchema, ...authenticatedErrors, ...bodyErrors },
        },
      },
      async (request, reply) => {
        const created = await memories.create(actorOf(request), request.body);
        reply.code(201).header('location', `/api/v1/memories/${created.memory_id}`);
        return created;
      },
    );

    app.put(
      '/memories/:memory_id',
      {
        schema: {
          tags: ['memories'],
          operationId: 'updateMemory',
          summary: 'Update a memory (partial; metadata as a JSON Merge Patch)',
          params: idParams,
          body: updateMemoryBody,
          response: {
            200: memoryWithMessageSchema,
            ...authenticatedErrors,
            ...notFound,
            ...bodyErrors,
          },
        },
      },
      async (request) => memories.update(actorOf(request), request.params.memory_id, request.body),
    );

    app.delete(
      '/memories/:memory_id',
      {
        schema: {
          tags: ['memories'],
          operationId: 'deleteMemory',
          summary: 'Delete a memory',
          params: idParams,
          response: { 200: z.object({ message: z.string() }), ...authenticatedErrors, ...notFound, ...bodyErrors },
        },
      },
      async (request) => memories.delete(actorOf(request), request.params.memory_id),
    );
  };
