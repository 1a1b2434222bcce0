import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  /** The route pattern as registered, e.g. `/api/v1/prompts/:id_or_slug`. */
  url: string;
}

/**
 * Every (method, route) the application has, read from the router itself (`printRoutes`), so a route added
 * later shows up here without anyone listing it. The printed tree joins each node's label to its parent's
 * path (`/api/v1/me` + `mories` = `/api/v1/memories`); HEAD is left out (Fastify derives it from GET).
 */
export function routesOf(app: FastifyInstance): RouteEntry[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const out: RouteEntry[] = [];
  for (const line of tree.split('\n')) {
    const marker = line.search(/[└├]── /);
    if (marker < 0) continue;
    const depth = marker / 4;
    const rest = line.slice(marker + 4);
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(rest);
    if (!match) continue;
    const label = match[1] ?? '';
    stack.length = depth;
    const parent = depth > 0 ? (stack[depth - 1] ?? '') : '';
    // A wildcard child is printed without its slash (`api/v1/docs` → `*` is `/api/v1/docs/*`).
    const path = label.startsWith('*') && !parent.endsWith('/') ? `${parent}/${label}` : parent + label;
    stack[depth] = path;
    for (const method of (match[2] ?? '').split(',').map((m) => m.trim())) {
      if (method && method !== 'HEAD') out.push({ method, url: path });
    }
  }
  return out;
}
