import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Container } from '../../../container.js';
import { createMemoryBatchBody, MEMORY_BATCH_MAX, memoryBatchSchema } from '../../../domain/memories/memory-schemas.js';
import { type AuthHookFactory, actorOf, keyAuth } from '../../auth.js';
import { authenticatedErrors, bodyErrors, errorSchema } from '../../openapi.js';

/**
 * A batch holds up to MEMORY_BATCH_MAX memories, so its body may be this many times the single-request
 * limit (8 MiB by default); it counts as one request for the rate limit (docs/api.md).
 */
export const MEMORY_BATCH_BODY_FACTOR = 8;

/** `POST /api/v1/memories/batch`: many memories in one request and one transaction, all or none. */
export const memoryBatchRoutes =
  (container: Container, auth: AuthHookFactory = keyAuth(container.services.gate)): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<ZodTypeProvider>();
    const { memoryBatches } = container.services;
    app.addHook('onRequest', auth('memories'));

    app.post(
      '/memories/batch',
      {
        bodyLimit: container.config.bodyLimitBytes * MEMORY_BATCH_BODY_FACTOR,
        schema: {
          tags: ['memories'],
          operationId: 'createMemories',
          summary: `Create up to ${MEMORY_BATCH_MAX} memories at once (all or none)`,
          description:
            'One transaction: if any item is invalid nothing is written, and the 400 `details` name every bad ' +
            'field of every item by its index (`memories.3.text`). Counts as one request for the rate limit. ' +
            `The body may be ${MEMORY_BATCH_BODY_FACTOR} times the size allowed for one memory.`,
          body: createMemoryBatchBody,
          response: {
            201: memoryBatchSchema,
            ...authenticatedErrors,
            ...bodyErrors,
            413: errorSchema.describe(
              `Body over ${MEMORY_BATCH_BODY_FACTOR} times the single-request limit (payload_too_large)`,
            ),
          },
        },
      },
      async (request, reply) => {
        const created = await memoryBatches.create(actorOf(request), request.body);
        reply.code(201);
        return created;
      },
    );
  };
