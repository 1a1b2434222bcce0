import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { DomainError, ValidationError } from '../domain/common/errors.js';
import { cursorOffset } from '../domain/common/pagination.js';

/** Where an unexpected failure is logged; the client only ever sees the request id. */
export interface FailureLog {
  requestId: string;
  error(fields: Record<string, unknown>, message: string): void;
}

const unexpected = (log: FailureLog, error: unknown) => {
  log.error({ err: error, reqId: log.requestId }, 'unhandled MCP error');
  return `An unexpected error occurred (request ${log.requestId})`;
};

/**
 * The one mapping of anything a tool throws to an MCP tool result: domain errors keep the REST message and
 * field details; anything else is logged with the request id and answered with the id alone (no SQL,
 * stack or path ever reaches a client).
 */
export function toolError(error: unknown, log: FailureLog) {
  const text =
    error instanceof DomainError
      ? `${error.code}: ${error.message}${
          error instanceof ValidationError
            ? `\n${Object.entries(error.details)
                .map(([field, message]) => `${field}: ${message}`)
                .join('\n')}`
            : ''
        }`
      : `internal_error: ${unexpected(log, error)}`;
  return { isError: true, content: [{ type: 'text' as const, text }] };
}

/**
 * The same rule for the other requests (prompts, resources): protocol errors pass as they are, domain
 * errors become "invalid params" with their message, anything else an internal error carrying only the id.
 */
export async function guarded<T>(log: FailureLog, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    if (error instanceof DomainError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    throw new ProtocolError(ProtocolErrorCode.InternalError, unexpected(log, error));
  }
}

/** A list request's cursor as an offset; a malformed one is -32602 (InvalidParams), as the spec asks. */
export function offsetOfCursor(cursor: string | undefined): number {
  const offset = cursorOffset(cursor);
  if (offset === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  return offset;
}
