import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A named budget of `registerRequestBudget` instead of the standard one (e.g. the streaming routes). */
    requestBudget?: string;
  }
}

/**
 * The per-request time budget (`REQUEST_TIMEOUT_MS`; `STREAM_TIMEOUT_MS` for the streaming bundle routes),
 * kept by one sweep instead of a timer per request.
 *
 * Fastify's own `handlerTimeout` arms a timer, an `AbortController` and a `close` listener for every request
 * and aborts the controller when the request ends (building a `DOMException`): about 15 µs of a hot read
 * that costs ~60 µs in all. Here a request is one entry in an insertion-ordered map per budget (entries of
 * one budget expire in the order they were added), and one interval timer answers those past their
 * deadline. A request therefore runs out between its budget and its budget plus one tick (a fifth of the
 * shortest budget, at most one second).
 *
 * What happens then is `onExpired` (timeouts.ts `sendTimeout`: 408 if the body is still arriving, else
 * 503); an answer already under way is cut instead (its client sees a truncated response, never a second
 * one). A handler that replies later is ignored by Fastify ("Reply was already sent", logged).
 */
export interface RequestBudgetOptions {
  defaultMs: number;
  /** Budgets of their own, by name, for the routes whose `config.requestBudget` names one. */
  named: Record<string, number>;
  onExpired: (request: FastifyRequest, reply: FastifyReply) => unknown;
  now?: () => number;
}

interface Entry {
  deadline: number;
  reply: FastifyReply;
}

export function registerRequestBudget(app: FastifyInstance, options: RequestBudgetOptions) {
  const { defaultMs, named, onExpired, now = Date.now } = options;
  const budgets = new Map<number, Map<FastifyRequest, Entry>>();
  const open = (ms: number) => {
    let entries = budgets.get(ms);
    if (!entries) {
      entries = new Map();
      budgets.set(ms, entries);
    }
    return entries;
  };
  const standard = open(defaultMs);
  for (const ms of Object.values(named)) open(ms);
  /** The budget each request is in, when not the standard one. */
  const moved = new WeakMap<FastifyRequest, Map<FastifyRequest, Entry>>();

  function sweep() {
    const at = now();
    for (const entries of budgets.values()) {
      for (const [request, entry] of entries) {
        if (entry.deadline > at) break;
        entries.delete(request);
        expire(request, entry.reply);
      }
    }
  }

  function expire(request: FastifyRequest, reply: FastifyReply) {
    if (reply.sent || reply.raw.destroyed) return;
    if (reply.raw.headersSent) {
      reply.raw.destroy(new Error('request exceeded its time budget'));
      return;
    }
    onExpired(request, reply);
  }

  const shortest = Math.min(defaultMs, ...Object.values(named));
  const timer = setInterval(sweep, Math.max(5, Math.min(1000, Math.floor(shortest / 5))));
  timer.unref();

  const forget = (request: FastifyRequest) => (moved.get(request) ?? standard).delete(request);

  app.addHook('onRequest', (request, reply, done) => {
    standard.set(request, { deadline: now() + defaultMs, reply });
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    forget(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    forget(request);
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(timer);
    done();
  });
  // A route with a budget of its own moves its requests there first thing (decided per route, once).
  app.addHook('onRoute', (route) => {
    const name = route.config?.requestBudget;
    if (name !== undefined) route.onRequest = [namedBudget(name), ...[route.onRequest ?? []].flat()];
  });

  function namedBudget(name: string): onRequestHookHandler {
    const ms = named[name];
    if (ms === undefined) throw new Error(`no request budget named ${name}`);
    const entries = open(ms);
    return (request, reply, done) => {
      standard.delete(request);
      entries.set(request, { deadline: now() + ms, reply });
      moved.set(request, entries);
      done();
    };
  }
}
