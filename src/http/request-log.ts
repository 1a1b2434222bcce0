import type { FastifyInstance } from 'fastify';

/**
 * Request logging that costs nothing per request at the default level (issue 15): Fastify's own two info
 * lines per request (`incoming request`, `request completed`) are off (`disableRequestLogging` in app.ts);
 * instead one line when the response is finished — at `warn` when it took `slowRequestMs` or more, at
 * `debug` otherwise (so `LOG_LEVEL=debug` is the access log). Failures are logged where they are handled
 * (errors.ts, timeouts.ts), whatever the level of this line.
 */
export function registerRequestLog(app: FastifyInstance, slowRequestMs: number): void {
  // Decided once: the level is set at start (routes declare no levels of their own).
  const everyRequest = app.log.level === 'debug' || app.log.level === 'trace';
  app.addHook('onResponse', (request, reply, done) => {
    const responseTime = reply.elapsedTime;
    if (responseTime >= slowRequestMs) {
      request.log.warn({ req: request, res: reply, responseTime }, 'slow request');
    } else if (everyRequest) {
      request.log.debug({ req: request, res: reply, responseTime }, 'request completed');
    }
    done();
  });
}
