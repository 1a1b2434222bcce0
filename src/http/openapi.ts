import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** The error body of every failure (api-decisions §2). */
export const errorSchema = z
  .object({
    error: z.string().meta({ description: 'Machine-readable code, e.g. validation_error' }),
    message: z.string(),
    details: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Field path → problem (validation_error only)' }),
    retry_after: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Seconds until the window resets (rate_limit_exceeded only)' }),
  })
  .meta({ id: 'Error' });

/** Error responses shared by authenticated routes, for the OpenAPI document. */
export const authenticatedErrors = {
  400: errorSchema.describe('Invalid input (validation_error)'),
  401: errorSchema.describe('Missing, invalid or revoked key, or a key without the needed integration'),
  429: errorSchema.describe('Hourly rate limit reached'),
} as const;

/**
 * OpenAPI 3.1 generated from the routes' zod schemas at `/api/v1/openapi.json`, and a browsable
 * reference at `/api/v1/docs`. Must be registered before the routes it describes.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cairn API',
        version: '1.0.0',
        description:
          'Prompts, artifacts and memories for people and AI tools. Every request carries `Authorization: Bearer <API key>`. ' +
          'Errors are JSON `{error, message}` plus `details` (validation) or `retry_after` (rate limits).',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: svk_ + 64 characters' },
        },
      },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'prompts', description: 'Reusable prompt templates' },
        { name: 'memories', description: 'Context snippets for AI tools, with ranked search' },
        { name: 'artifacts', description: 'Versioned documents addressed by project and slug' },
      ],
    },
    // The dashboard's session API reuses the REST route plugins; it is documented in docs/dashboard-api.md,
    // not in the public API description.
    transform: (input) =>
      input.url.startsWith('/dashboard/') ? { schema: { hide: true }, url: input.url } : jsonSchemaTransform(input),
  });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(fastifySwaggerUi, { routePrefix: '/api/v1/docs', uiConfig: { docExpansion: 'list' } });
}
