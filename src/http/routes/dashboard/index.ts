import type { FastifyPluginAsync } from 'fastify';
import type { Container } from '../../../container.js';
import { artifactRoutes } from '../v1/artifacts.js';
import { auditRoutes } from '../v1/audit.js';
import { memoryRoutes } from '../v1/memories.js';
import { memoryBatchRoutes } from '../v1/memory-batch.js';
import { promptRoutes } from '../v1/prompts.js';
import { webhookRoutes } from '../v1/webhooks.js';
import { accountRoutes } from './account.js';
import { keyRoutes } from './keys.js';
import { requireSameOrigin, sessionAuth } from './session.js';

export const DASHBOARD_API = '/dashboard/api';

/**
 * `/dashboard/api`: the dashboard's session-authenticated JSON API (docs/dashboard-api.md). Content routes
 * are the REST route plugins with session auth instead of an API key, so both surfaces share one
 * implementation. Every state change must come from this origin (CSRF).
 */
export const dashboardRoutes =
  (container: Container): FastifyPluginAsync =>
  async (app) => {
    app.addHook('onRequest', requireSameOrigin);
    await app.register(accountRoutes(container));
    await app.register(keyRoutes(container));
    const auth = sessionAuth(container);
    await app.register(promptRoutes(container, auth));
    await app.register(memoryRoutes(container, auth));
    await app.register(memoryBatchRoutes(container, auth));
    await app.register(artifactRoutes(container, auth));
    await app.register(auditRoutes(container, auth));
    await app.register(webhookRoutes(container, auth));
  };
