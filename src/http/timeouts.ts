import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerTimeouts } from '../config.js';
import { sendError } from './errors.js';

/**
 * How long a client may take, and how long a request may take, before the server gives up on it.
 *
 * - Headers (`HEADERS_TIMEOUT_MS`, node's `headersTimeout`): a client that sends its header block slowly
 *   (slowloris) gets a 408 `request_timeout` and the connection is closed.
 * - Per-request budget (`REQUEST_TIMEOUT_MS`, request-budget.ts): from routing to the reply, body
 *   included. If the body is still arriving when it runs out the client is the slow one: 408 and the
 *   connection is closed; otherwise the server is: 503 `service_unavailable` with `Retry-After`. A handler
 *   that replies later is ignored (Fastify logs "Reply was already sent"); it never crashes the process.
 * - The bundle routes (`POST /api/v1/import` streams up to IMPORT_MAX_BYTES in, `GET /api/v1/export` streams
 *   a whole account out) get the larger `STREAM_TIMEOUT_MS` budget instead: an export still running when it
 *   expires is cut (the bundle then lacks its `end` line, so the client knows). The same value is node's
 *   `requestTimeout`, the outer bound on receiving any request.
 * - Idle (`IDLE_TIMEOUT_MS`, the socket timeout): a connection in the middle of a request with no byte moving
 *   either way (a stalled upload, a reader that stopped reading) is closed. Above the request budget, so a
 *   slow request still gets its 503 first.
 * - Keep-alive (`KEEP_ALIVE_TIMEOUT_MS`, 72 s): longer than the usual 60 s idle timeout of load balancers,
 *   so the balancer, not Cairn, closes idle connections and never reuses one Cairn is closing.
 */
export function serverTimeoutOptions(timeouts: ServerTimeouts) {
  // node requires headersTimeout <= requestTimeout (config checks it; max() keeps the invariant regardless).
  const requestTimeout = Math.max(timeouts.streamMs, timeouts.headersMs);
  return {
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout,
    http: <ServerOptions>{
      headersTimeout: timeouts.headersMs,
      requestTimeout,
      // node checks header/request deadlines on this interval (30 s by default, which would let a slowloris
      // client hold a connection three times the configured headers timeout).
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
    },
    clientErrorHandler,
  };
}

/** Route option for the streaming bundle routes: the stream budget replaces the per-request one. */
export const streamingRoute = { config: { requestBudget: 'stream' } };

/** The request budgets (request-budget.ts) by name: the standard one and the streaming routes'. */
export const requestBudgets = (timeouts: ServerTimeouts) => ({
  defaultMs: timeouts.requestMs,
  named: { stream: timeouts.streamMs },
});

/** The 503's message for a request that ran out of its budget (hot-reads.ts sends the same). */
export const OVER_BUDGET_MESSAGE = 'The request took too long; retry shortly';

/** The answer to a request that ran out of its budget: 408 if the client is still sending, else 503. */
export function sendTimeout(request: FastifyRequest, reply: FastifyReply) {
  if (!request.raw.complete) {
    request.log.info('request body not received within the request budget');
    return sendError(reply, 'request_timeout', 'The request was not received in time');
  }
  request.log.warn({ route: request.routeOptions.url }, 'request exceeded its time budget');
  reply.header('retry-after', '5');
  return sendError(reply, 'service_unavailable', OVER_BUDGET_MESSAGE);
}

/**
 * An answer sent before the client finished sending its body closes the connection: otherwise node would
 * keep reading (and discarding) the rest, at whatever pace the client chooses. onSend hook.
 */
export function closeIfBodyUnread<P>(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: P,
  done: (error: null, payload: P) => void,
): void {
  // A callback hook: an async one costs a promise and a microtask on every request.
  if (!request.raw.complete) reply.header('connection', 'close');
  done(null, payload);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Errors on a connection before any request exists (node's `clientError`): a header block that did not
 * arrive in time, one too large, or bytes that are not HTTP. Answered in the API's error shape on the raw
 * socket, then closed. Replaces Fastify's default, whose body is not the API's error shape.
 */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, body] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, { error: 'request_timeout', message: 'The request was not received in time' }]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            { error: 'validation_error', message: 'Request headers are too large', details: { headers: 'Too large' } },
          ]
        : [
            400,
            {
              error: 'validation_error',
              message: 'Malformed HTTP request',
              details: { request: 'Not valid HTTP/1.1' },
            },
          ];
  // A response already under way on this socket (node's own check) must not be corrupted: just close.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
