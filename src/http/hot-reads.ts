import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { AccessGate } from '../domain/accounts/access-gate.js';
import type { Actor } from '../domain/common/actor.js';
import { etagOf } from '../domain/common/etag.js';
import type { ChangeStamp } from '../domain/common/fresh-cache.js';
import type { RateStatus } from '../domain/limits/rate-limit.js';
import type { Prompt } from '../domain/prompts/prompt-schemas.js';
import type { JsonWriter } from './frozen-json.js';
import { requestIdOf } from './request-id.js';
import { OVER_BUDGET_MESSAGE } from './timeouts.js';

/**
 * The hot read outside Fastify's request lifecycle (issue 15, docs/performance.md "Hot reads").
 *
 * `GET /api/v1/prompts/{id_or_slug}` is the read clients repeat most. When everything its answer needs is
 * already in memory and fresh — the key (access gate) and the prompt (prompt service), both checked against
 * the database's change stamp — this answers it straight from the server's `request` event with the same
 * bytes the Fastify route would send, skipping routing, hooks, schema parsing, the request budget and the
 * reply machinery (about half of such a request's CPU).
 *
 * The rule that keeps it honest: it answers **only a 200 it is sure of**, and it declines — hands the
 * untouched request to Fastify — before it has counted or recorded anything. Anything else (an unknown,
 * revoked or malformed key, a cache miss, a query string, a body, a rate limit reached, `HEAD`, a
 * percent-encoded or odd path) takes the full way, which answers it as it always did.
 * test/http/hot-reads.test.ts compares both ways byte for byte.
 *
 * **One change-stamp reading per batch.** Whether the cached key and prompt are fresh is a reading of the
 * database's change stamp (a `pread` of SQLite's WAL-index header, a system call: on some virtual machines
 * a sixth of such a request's CPU, docs/performance.md session 13). A reading serves every request that
 * had *arrived* when it was taken: a commit that ended before any of them arrived ended before it. So the
 * requests of this shape that arrive in one turn of the event loop's poll phase — each socket read, parsed
 * and queued in turn — are answered together in the check phase that follows (`setImmediate`), after a
 * single reading taken once every one of them is in. A revocation committed before a request arrives is
 * still seen by that request; the wait adds only the rest of the turn.
 *
 * **The looked-up way** (PostgreSQL, or a shared counter store): where keys cannot be trusted from memory
 * without asking the database, or the rate limit is counted in Redis, each request's key is read and its
 * admission counted as it arrives (`gate.lookUp`, `gate.admitLookedUp`: nothing counted before the prompt is
 * found in memory). Only keys the gate has admitted before are read here: any other key (a guess) goes the
 * full way at once, and is read once, there. The stores ask all of a turn's lookups in one query and all of its admissions in one
 * Redis script call (domain/common/turn-batch.ts), so the requests that arrive together still cost one round
 * trip each way. Such a request keeps the request budget: if its store does not answer within it, the 503
 * the full way sends for a request over budget is sent.
 */
export interface HotReadsOptions {
  gate: AccessGate;
  prompts: { peek(actor: Actor, idOrSlug: string): Prompt | undefined };
  /**
   * `in-memory`: keys from memory under the database's change stamp, read once per batch of requests
   * (above), counted by counters that admit at once. `looked-up`: keys read and admissions counted per
   * request through stores that batch them per turn, within `budgetMs`.
   */
  way: { kind: 'in-memory'; changeStamp: ChangeStamp } | { kind: 'looked-up'; budgetMs: number };
  json: JsonWriter;
  logger: Logger;
  slowRequestMs: number;
}

/** Counts of what the hot path did (tests, and a look from a debugger). */
export interface HotReadStats {
  way: HotReadsOptions['way']['kind'];
  served: number;
  declined: number;
  /** Requests of the looked-up way answered 503 because their store did not answer within the budget. */
  expired: number;
}

const PREFIX = '/api/v1/prompts/';
/** An id or slug that needs no decoding and that the route's schema accepts (1–200 characters). */
const ID_OR_SLUG = /^[A-Za-z0-9_-]{1,200}$/;
const CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Puts the hot read in front of `server`'s request handler (Fastify's). Returns its counters.
 * Only for a configuration where its answer cannot differ from Fastify's: the client address from the
 * socket (no trusted proxy) and a log level that does not log every request.
 */
export function installHotReads(server: Server, options: HotReadsOptions): HotReadStats {
  const { gate, prompts, way, json, logger, slowRequestMs } = options;
  const stats: HotReadStats = { way: way.kind, served: 0, declined: 0, expired: 0 };
  const [handler, ...others] = server.listeners('request') as RequestListener[];
  if (!handler || others.length > 0) throw new Error('hot reads expect exactly one request handler');
  const fastify: RequestListener = handler;
  server.removeListener('request', fastify);

  /** The id or slug of a request of the hot read's shape, or undefined. Synchronous, no I/O, nothing read. */
  function shaped(request: IncomingMessage): string | undefined {
    const { method, url, headers } = request;
    if (method !== 'GET' || url === undefined || !url.startsWith(PREFIX)) return undefined;
    const idOrSlug = url.slice(PREFIX.length);
    if (!ID_OR_SLUG.test(idOrSlug)) return undefined;
    // A GET with a body is Fastify's to answer (it may close the connection after it).
    if (headers['transfer-encoding'] !== undefined) return undefined;
    const length = headers['content-length'];
    if (length !== undefined && length !== '0') return undefined;
    return idOrSlug;
  }

  /** The peeked key and prompt of a request this path can answer at `stamp`, or undefined. No I/O. */
  function candidate(request: IncomingMessage, idOrSlug: string, stamp: number) {
    const peeked = gate.peek(request.headers.authorization, 'prompts.read', stamp);
    if (!peeked) return undefined;
    const prompt = prompts.peek(peeked.actor, idOrSlug);
    return prompt && { peeked, prompt };
  }

  /** Counts the request and answers it; or declines it, having counted nothing. */
  function answer(queued: Queued, found: NonNullable<ReturnType<typeof candidate>>): boolean {
    const admission = gate.admitPeeked(found.peeked, queued.request.socket.remoteAddress ?? '');
    if (!admission) return false;
    respond(queued, found.prompt, admission.rate);
    return true;
  }

  /** The 200 the route sends, with its headers in its order (app.ts onRequest, auth.ts, withEtag, the reply). */
  function respond({ request, response, arrived }: Queued, prompt: Prompt, rate: RateStatus) {
    const { text, bytes } = json.frozen(prompt);
    const id = requestIdOf(request.headers);
    response.writeHead(200, {
      'x-request-id': id,
      'x-ratelimit-limit': String(rate.limit),
      'x-ratelimit-remaining': String(rate.remaining),
      'x-ratelimit-reset': String(rate.resetEpochSeconds),
      etag: etagOf(prompt.version),
      'content-type': CONTENT_TYPE,
      'content-length': bytes,
    });
    response.end(text);
    const responseTime = performance.now() - arrived;
    if (responseTime >= slowRequestMs) logSlow(logger, request, id, responseTime);
  }

  /** Hands a request to Fastify; one that throws must not leave the others unanswered. */
  function fullWay({ request, response }: { request: IncomingMessage; response: ServerResponse }) {
    try {
      fastify(request, response);
    } catch (error) {
      logger.error({ err: error }, 'request handler failed');
      response.destroy();
    }
  }

  interface Queued {
    request: IncomingMessage;
    response: ServerResponse;
    idOrSlug: string;
    /** When its `request` event came: the slow-request log measures from there, as Fastify does. */
    arrived: number;
  }
  let queue: Queued[] = [];

  /** Answers every queued request it can after one stamp reading; hands the others to Fastify. */
  function drain() {
    const batch = queue;
    queue = [];
    // Taken now, after every request of the batch has arrived (see the module's comment). Without one
    // (a stamp that cannot be read) every request goes the full way.
    let stamp: number | undefined;
    try {
      stamp = way.kind === 'in-memory' ? way.changeStamp() : undefined;
    } catch (error) {
      logger.error({ err: error }, 'hot read: the change stamp could not be read');
    }
    const declined: Queued[] = [];
    for (const queued of batch) {
      try {
        const found = stamp === undefined ? undefined : candidate(queued.request, queued.idOrSlug, stamp);
        if (found && answer(queued, found)) {
          stats.served++;
          continue;
        }
        if (found) stats.declined++;
      } catch (error) {
        // Nothing here should throw; if something does, the full way answers (or the half-sent answer ends).
        logger.error({ err: error }, 'hot read failed');
        if (queued.response.headersSent) {
          queued.response.destroy();
          continue;
        }
      }
      declined.push(queued);
    }
    // After the batch, in order.
    for (const queued of declined) fullWay(queued);
  }

  // ---- The looked-up way ----

  /** Requests of the looked-up way not answered yet, oldest first (a Set keeps insertion order). */
  const waiting = new Set<Queued>();
  const budgetMs = way.kind === 'looked-up' ? way.budgetMs : 0;

  /** Reads the key, finds the prompt, counts the request and answers it; anything else goes the full way. */
  async function lookUpAndAnswer(queued: Queued) {
    let answered = false;
    try {
      const peeked = await gate.lookUp(queued.request.headers.authorization, 'prompts.read');
      const prompt = peeked && prompts.peek(peeked.actor, queued.idOrSlug);
      if (peeked && prompt && waiting.has(queued)) {
        const admission = await gate.admitLookedUp(peeked, queued.request.socket.remoteAddress ?? '');
        // Over budget meanwhile: its 503 is sent; the count stands, as the full way's would.
        if (!waiting.has(queued)) return;
        if (admission) {
          respond(queued, prompt, admission.rate);
          answered = true;
          stats.served++;
        } else stats.declined++;
      }
    } catch (error) {
      logger.error({ err: error }, 'hot read failed');
    }
    if (!waiting.delete(queued) || answered) return;
    if (queued.response.headersSent) queued.response.destroy();
    else fullWay(queued);
  }

  /** The 503 of a request whose store did not answer within the budget (timeouts.ts sendTimeout's). */
  function overBudget(queued: Queued) {
    const { request, response } = queued;
    const id = requestIdOf(request.headers);
    const body = JSON.stringify({ error: 'service_unavailable', message: OVER_BUDGET_MESSAGE });
    logger.warn({ reqId: id, route: '/api/v1/prompts/:id_or_slug' }, 'request exceeded its time budget');
    response.writeHead(503, {
      'x-request-id': id,
      'retry-after': '5',
      'content-type': CONTENT_TYPE,
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  }

  if (way.kind === 'looked-up') {
    // One sweep for all (request-budget.ts's reasoning): a request runs out between its budget and one tick more.
    const sweep = setInterval(
      () => {
        const expired = performance.now() - budgetMs;
        for (const queued of waiting) {
          if (queued.arrived > expired) break;
          waiting.delete(queued);
          if (queued.response.headersSent) continue;
          stats.expired++;
          overBudget(queued);
        }
      },
      Math.max(5, Math.min(1000, Math.floor(budgetMs / 5))),
    );
    sweep.unref();
    server.once('close', () => clearInterval(sweep));
  }

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const idOrSlug = shaped(request);
    if (idOrSlug === undefined) {
      fastify(request, response);
      return;
    }
    const queued: Queued = { request, response, idOrSlug, arrived: performance.now() };
    if (way.kind === 'looked-up') {
      waiting.add(queued);
      void lookUpAndAnswer(queued);
      return;
    }
    if (queue.length === 0) setImmediate(drain);
    queue.push(queued);
  });
  return stats;
}

/** request-log.ts's slow-request line, in the shape Fastify's serialisers give it. */
function logSlow(logger: Logger, request: IncomingMessage, reqId: string, responseTime: number) {
  logger.warn(
    {
      reqId,
      req: {
        method: request.method,
        url: request.url,
        version: request.headers['accept-version'],
        host: request.headers.host,
        remoteAddress: request.socket.remoteAddress,
        remotePort: request.socket.remotePort,
      },
      res: { statusCode: 200 },
      responseTime,
    },
    'slow request',
  );
}
