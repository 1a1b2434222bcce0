import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Container } from '../../../container.js';
import {
  createPromptBody,
  listPromptsQuery,
  promptCreatedSchema,
  promptListSchema,
  promptSchema,
  promptUpdatedSchema,
  updatePromptBody,
} from '../../../domain/prompts/prompt-schemas.js';
import { type AuthHookFactory, actorOf, keyAuth } from '../../auth.js';
import { authenticatedErrors, errorSchema } from '../../openapi.js';

const idOrSlugParams = z.object({
  id_or_slug: z.string().min(1).max(200).meta({ description: 'The prompt id (prm_…) or its slug' }),
});
const messageSchema = z.object({ message: z.string() });
const notFound = { 404: errorSchema.describe('No such prompt for this user') };

/** `/api/v1/prompts`: thin handlers, one service call each. */
export const promptRoutes =
  (container: Container, auth: AuthHookFactory = keyAuth(container.services.gate)): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<ZodTypeProvider>();
    const { prompts } = container.services;
    app.addHook(
      'onRequest',
      auth((method) => (method === 'GET' || method === 'HEAD' ? 'prompts.read' : 'prompts.write')),
    );

    app.get(
      '/prompts',
      {
        schema: {
          tags: ['prompts'],
          summary: 'List prompts',
          description:
            'Newest `updated_at` first. `search` matches every whitespace-separated term (case-insensitive) in title, description or content; repeated `label` parameters must all match.',
          querystring: listPromptsQuery,
          response: { 200: promptListSchema, ...authenticatedErrors },
        },
      },
      async (request) => prompts.list(actorOf(request), request.query),
    );

    app.get(
      '/prompts/:id_or_slug',
      {
        schema: {
          tags: ['prompts'],
          summary: 'Read a prompt',
          params: idOrSlugParams,
          response: { 200: promptSchema, ...authenticatedErrors, ...notFound },
        },
      },
      async (request) => prompts.get(actorOf(request), request.params.id_or_slug),
    );

    app.post(
      '/prompts',
      {
        schema: {
          tags: ['prompts'],
          summary: 'Create a prompt',
          body: createPromptBody,
          response: {
            201: promptCreatedSchema,
            ...authenticatedErrors,
            409: errorSchema.describe('The slug is already in use'),
            413: errorSchema,
            415: errorSchema,
          },
        },
      },
      async (request, reply) => {
        const created = await prompts.create(actorOf(request), request.body);
        reply.code(201).header('location', `/api/v1/prompts/${created.id}`);
        return created;
      },
    );

    app.put(
      '/prompts/:id_or_slug',
      {
        schema: {
          tags: ['prompts'],
          summary: 'Update a prompt (partial)',
          description: 'Only supplied fields change; the slug cannot be changed.',
          params: idOrSlugParams,
          body: updatePromptBody,
          response: {
            200: promptUpdatedSchema,
            ...authenticatedErrors,
            ...notFound,
            413: errorSchema,
            415: errorSchema,
          },
        },
      },
      async (request) => prompts.update(actorOf(request), request.params.id_or_slug, request.body),
    );

    app.delete(
      '/prompts/:id_or_slug',
      {
        schema: {
          tags: ['prompts'],
          summary: 'Delete a prompt',
          description: 'Permanent. Other prompts that reference this one keep their (now broken) references.',
          params: idOrSlugParams,
          response: { 200: messageSchema, ...authenticatedErrors, ...notFound },
        },
      },
      async (request) => prompts.delete(actorOf(request), request.params.id_or_slug),
    );
  };
