import type { FastifyInstance, HTTPMethods } from 'fastify';
import { sendError } from './errors.js';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Known path, unsupported method → 405 with `Allow` (api-decisions §2) instead of Fastify's 404.
 * Routes are collected as they are registered; `finish()` adds a 405 route for every missing method.
 */
export function registerMethodNotAllowed(app: FastifyInstance) {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const known = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of methods) known.add(method);
    methodsByUrl.set(route.url, known);
  });

  return {
    finish() {
      for (const [url, known] of [...methodsByUrl]) {
        if (url.includes('*')) continue;
        const missing = METHODS.filter((m) => !known.has(m));
        if (missing.length === 0) continue;
        const allow = METHODS.filter((m) => known.has(m));
        if (known.has('GET')) allow.splice(1, 0, 'HEAD');
        app.route({
          method: missing,
          url,
          schema: { hide: true },
          handler: (request, reply) => {
            reply.header('allow', allow.join(', '));
            return sendError(reply, 'method_not_allowed', `Method ${request.method} is not allowed on this path`);
          },
        });
      }
    },
  };
}
