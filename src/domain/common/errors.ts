/**
 * Transport-neutral errors. Services throw these; each transport maps them once
 * (HTTP: status + JSON body, MCP: tool error). Anything else that escapes is an
 * internal error and its details never reach a client.
 */
export type FieldErrors = Record<string, string>;

export abstract class DomainError extends Error {
  abstract readonly code: string;
}

export class ValidationError extends DomainError {
  readonly code = 'validation_error';
  constructor(
    readonly details: FieldErrors,
    message = 'Request validation failed',
  ) {
    super(message);
  }
}

/** "Not yours" and "not found" are the same error, so ownership is never revealed. */
export class NotFoundError extends DomainError {
  readonly code = 'not_found';
  constructor(what = 'Resource') {
    super(`${what} not found`);
  }
}

export class ConflictError extends DomainError {
  readonly code = 'conflict';
}

export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized';
  constructor(message = 'Invalid or missing API key') {
    super(message);
  }
}

/** Authenticated, but not allowed (sign-up closed, a foreign origin on a state change). */
export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}

export class PreconditionFailedError extends DomainError {
  readonly code = 'precondition_failed';
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large';
}

export class RateLimitedError extends DomainError {
  readonly code = 'rate_limit_exceeded';
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Rate limit exceeded',
  ) {
    super(message);
  }
}

/** Storage (or another required backend) cannot be reached; the client should retry later. */
export class UnavailableError extends DomainError {
  readonly code = 'service_unavailable';
  constructor(
    message = 'Service temporarily unavailable',
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}
