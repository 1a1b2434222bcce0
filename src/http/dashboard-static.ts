import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where `npm run build` puts the dashboard (web/ built by Vite). */
const WEB_ROOT = fileURLToPath(new URL('../../dist/web', import.meta.url));

// The dashboard loads only its own scripts and styles; nothing may frame it.
const DASHBOARD_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** Serves the built dashboard at `/` (unknown files fall through to the JSON 404). */
export async function registerDashboard(app: FastifyInstance): Promise<void> {
  if (!existsSync(WEB_ROOT)) {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send('The dashboard has not been built: run `npm run build` (npm install does it).'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: WEB_ROOT,
    prefix: '/',
    index: ['index.html'],
    wildcard: true,
    setHeaders: (res, path) => {
      for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(name, value);
      // Hashed assets never change; the page itself is always revalidated.
      res.setHeader('cache-control', path.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
  });
}
