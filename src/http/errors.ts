import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { UserRateLimitedError } from '../domain/accounts/access-gate.js';
import {
  DomainError,
  type FieldErrors,
  RateLimitedError,
  UnavailableError,
  ValidationError,
} from '../domain/common/errors.js';
import { setRateHeaders } from './rate-headers.js';

/** Request validation failure from a route schema, with the zod issues kept for `details`. */
export class RequestValidationError extends Error {
  readonly statusCode = 400;
  constructor(readonly details: FieldErrors) {
    super('Request validation failed');
  }
}

export interface ErrorBody {
  error: string;
  message: string;
  details?: FieldErrors;
  retry_after?: number;
  /** On a 500: the id under which the failure was logged, for the operator (the body carries nothing else). */
  request_id?: string;
}

const STATUS: Record<string, number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export function sendError(reply: FastifyReply, code: string, message: string, extra: Partial<ErrorBody> = {}) {
  const status = STATUS[code] ?? 500;
  // A route may have set a more specific challenge (the MCP endpoint's, for clients that would try OAuth).
  if (status === 401 && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', 'Bearer realm="cairn"');
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error: code, message, ...extra });
}

/** The 404 of a path no route has (the server's not-found handler, and the API reference's). */
export const sendNoRoute = (request: FastifyRequest, reply: FastifyReply) =>
  sendError(reply, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);

/**
 * The one mapping from anything thrown to the error contract (api-decisions §2). Framework errors
 * (body parsing, limits, media types) are translated; storage reports an unreachable database as an
 * `UnavailableError` (a 503); unexpected errors become a bare 500.
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof RequestValidationError || error instanceof ValidationError) {
    return sendError(reply, 'validation_error', error.message, { details: error.details });
  }
  if (error instanceof UserRateLimitedError) setRateHeaders(reply, error.rate);
  if (error instanceof RateLimitedError) {
    reply.header('retry-after', String(error.retryAfterSeconds));
    return sendError(reply, error.code, error.message, { retry_after: error.retryAfterSeconds });
  }
  if (error instanceof UnavailableError) {
    if (error.cause !== undefined) request.log.warn({ err: error.cause }, 'backend unavailable');
    reply.header('retry-after', String(error.retryAfterSeconds));
    return sendError(reply, error.code, error.message);
  }
  if (error instanceof DomainError) return sendError(reply, error.code, error.message);

  const code = (error as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return sendError(reply, 'validation_error', 'Request body is not valid JSON', {
        details: { body: 'Not valid JSON' },
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendError(reply, 'validation_error', 'Request body is empty', { details: { body: 'Required' } });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendError(reply, 'payload_too_large', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendError(reply, 'unsupported_media_type', 'Request body must be JSON (Content-Type: application/json)');
  }
  // secure-json-parse rejects __proto__ / constructor.prototype keys with a SyntaxError.
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
    return sendError(reply, 'validation_error', 'Request body is not valid JSON', {
      details: { body: error.message },
    });
  }
  const status = (error as FastifyError).statusCode;
  if (status === 413) return sendError(reply, 'payload_too_large', 'Request body is too large');
  if (status === 415) return sendError(reply, 'unsupported_media_type', 'Unsupported media type');
  if (status !== undefined && status >= 400 && status < 500) {
    return sendError(reply, 'validation_error', 'Invalid request', { details: { request: error.message } });
  }
  request.log.error({ err: error, reqId: request.id }, 'unhandled error');
  return sendError(reply, 'internal_error', `An unexpected error occurred (request ${request.id})`, {
    request_id: request.id,
  });
}
