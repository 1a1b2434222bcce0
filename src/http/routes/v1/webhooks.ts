import { z } from 'zod';
import { boundedString } from '../../../domain/common/bounds.js';
import {
  attemptPageSchema,
  createWebhookInput,
  deliveryPageSchema,
  testEventSchema,
  updateWebhookInput,
  webhookListSchema,
  webhookPageQuery,
  webhookViewSchema,
  webhookWithSecretSchema,
} from '../../../domain/webhooks/webhook-schemas.js';
import { actorOf } from '../../auth.js';
import { authenticatedErrors, bodyErrors, errorSchema, keyErrors } from '../../openapi.js';
import { messageSchema, operations, restResource } from '../operations.js';

const idParams = z.object({
  id: boundedString(100, 'Not a valid id').min(1).meta({ description: 'The webhook id (whk_…)' }),
});
const notFound = { 404: errorSchema.describe('No such webhook for this user (not_found)') };
const op = operations('webhooks');

/**
 * `/api/v1/webhooks`: endpoints, the "send test event" action and the delivery log (docs/webhooks.md). The
 * dashboard mounts the same plugin with its session auth.
 */
export const webhookRoutes = restResource('webhooks', (app, container) => {
  const { webhooks } = container.services;

  app.get(
    '/webhooks',
    op('listWebhooks', 'List your webhook endpoints', {
      description: 'Every endpoint of the account (at most WEBHOOK_MAX_ENDPOINTS), oldest first; never the secrets.',
      response: { 200: webhookListSchema, ...keyErrors },
    }),
    async (request) => webhooks.list(actorOf(request)),
  );

  app.post(
    '/webhooks',
    op('createWebhook', 'Register a webhook endpoint', {
      description:
        'The URL must be http(s); loopback, private, link-local and reserved addresses (and names resolving to ' +
        'them) are refused unless the operator allows private networks. The signing secret is in this answer only.',
      body: createWebhookInput,
      response: {
        201: webhookWithSecretSchema,
        ...authenticatedErrors,
        ...bodyErrors,
        409: errorSchema.describe('The account has the most endpoints allowed (conflict)'),
      },
    }),
    async (request, reply) => {
      const created = await webhooks.create(actorOf(request), request.body);
      return reply.code(201).header('location', `/api/v1/webhooks/${created.id}`).send(created);
    },
  );

  app.get(
    '/webhooks/:id',
    op('getWebhook', 'Read a webhook endpoint', {
      params: idParams,
      response: { 200: webhookViewSchema, ...authenticatedErrors, ...notFound },
    }),
    async (request) => webhooks.get(actorOf(request), request.params.id),
  );

  app.put(
    '/webhooks/:id',
    op('updateWebhook', 'Change a webhook endpoint (partial); enabled: true re-enables it', {
      params: idParams,
      body: updateWebhookInput,
      response: { 200: webhookViewSchema, ...authenticatedErrors, ...bodyErrors, ...notFound },
    }),
    async (request) => webhooks.update(actorOf(request), request.params.id, request.body ?? {}),
  );

  app.delete(
    '/webhooks/:id',
    op('deleteWebhook', 'Delete a webhook endpoint (its queued deliveries and log go with it)', {
      params: idParams,
      response: { 200: messageSchema, ...authenticatedErrors, ...bodyErrors, ...notFound },
    }),
    async (request) => {
      await webhooks.delete(actorOf(request), request.params.id);
      return { message: 'Webhook deleted' };
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    op('rotateWebhookSecret', 'Replace the signing secret (the new one is in this answer only)', {
      params: idParams,
      response: { 200: webhookWithSecretSchema, ...authenticatedErrors, ...bodyErrors, ...notFound },
    }),
    async (request) => webhooks.rotateSecret(actorOf(request), request.params.id),
  );

  app.post(
    '/webhooks/:id/test',
    op('testWebhook', 'Send a test event (webhook.test) to this endpoint through the outbox', {
      params: idParams,
      response: {
        202: testEventSchema,
        ...authenticatedErrors,
        ...bodyErrors,
        ...notFound,
        409: errorSchema.describe('The endpoint is disabled (conflict)'),
      },
    }),
    async (request, reply) => reply.code(202).send(await webhooks.sendTest(actorOf(request), request.params.id)),
  );

  app.get(
    '/webhooks/:id/deliveries',
    op('listWebhookDeliveries', 'Deliveries to this endpoint, newest first, with status and last response code', {
      params: idParams,
      querystring: webhookPageQuery,
      response: { 200: deliveryPageSchema, ...authenticatedErrors, ...notFound },
    }),
    async (request) => webhooks.deliveries(actorOf(request), request.params.id, request.query),
  );

  app.get(
    '/webhooks/:id/attempts',
    op('listWebhookAttempts', 'The delivery log: every attempt, newest first (outcome, status code, duration, error)', {
      params: idParams,
      querystring: webhookPageQuery,
      response: { 200: attemptPageSchema, ...authenticatedErrors, ...notFound },
    }),
    async (request) => webhooks.attempts(actorOf(request), request.params.id, request.query),
  );
});
