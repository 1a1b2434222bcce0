import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { DomainError, NotFoundError, ValidationError } from '../domain/common/errors.js';
import { cursorOffset } from '../domain/common/pagination.js';

/** Where an unexpected failure is logged; the client only ever sees the request id. */
export interface FailureLog {
  requestId: string;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * What a failure becomes for an MCP client, whichever way it is answered: a protocol error as it is, a
 * domain error with its code and message (and its field details), anything else logged under the request
 * id and answered with the id alone (no SQL, stack or path ever reaches a client).
 */
type Failure =
  | { kind: 'protocol'; error: ProtocolError }
  | { kind: 'domain'; error: DomainError }
  | { kind: 'unexpected'; message: string };

function classify(error: unknown, log: FailureLog): Failure {
  if (error instanceof ProtocolError) return { kind: 'protocol', error };
  if (error instanceof DomainError) return { kind: 'domain', error };
  log.error({ err: error, reqId: log.requestId }, 'unhandled MCP error');
  return { kind: 'unexpected', message: `An unexpected error occurred (request ${log.requestId})` };
}

const fieldLines = (error: DomainError) =>
  error instanceof ValidationError
    ? `\n${Object.entries(error.details)
        .map(([field, message]) => `${field}: ${message}`)
        .join('\n')}`
    : '';

/**
 * The one MCP error mapper, in the two forms the protocol answers in. `tool`: a `tools/call` result with
 * `isError` (the model reads it), `code: message` plus one line per bad field. `request`: the JSON-RPC
 * error of every other request — domain errors are -32602 (invalid params) with their message, or what
 * `notFound` makes of a NotFoundError (prompts and resources have their own not-found answers).
 */
export const mcpErrors = {
  tool(error: unknown, log: FailureLog) {
    const failure = classify(error, log);
    const text =
      failure.kind === 'unexpected'
        ? `internal_error: ${failure.message}`
        : failure.kind === 'domain'
          ? `${failure.error.code}: ${failure.error.message}${fieldLines(failure.error)}`
          : `invalid_params: ${failure.error.message}`;
    return { isError: true, content: [{ type: 'text' as const, text }] };
  },

  request(error: unknown, log: FailureLog, notFound?: () => ProtocolError): ProtocolError {
    const failure = classify(error, log);
    if (failure.kind === 'protocol') return failure.error;
    if (failure.kind === 'unexpected') return new ProtocolError(ProtocolErrorCode.InternalError, failure.message);
    if (notFound && failure.error instanceof NotFoundError) return notFound();
    return new ProtocolError(ProtocolErrorCode.InvalidParams, failure.error.message);
  },

  /**
   * The SDK checks each request's params before calling a handler but answers a failure with a plain
   * Error (which would go out as -32603). Every handler here maps its own failures (`request`, `tool`),
   * so a plain Error reaching the server wrapper can only be that check: JSON-RPC's invalid params.
   */
  params(method: string, error: unknown): ProtocolError {
    if (error instanceof ProtocolError) return error;
    const reason = error instanceof Error ? error.message.slice(0, 500) : 'not valid';
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: ${reason}`);
  },
};

/** Runs a request handler, answering any failure through `mcpErrors.request`. */
export async function guarded<T>(log: FailureLog, run: () => Promise<T>, notFound?: () => ProtocolError): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw mcpErrors.request(error, log, notFound);
  }
}

/** A list request's cursor as an offset; a malformed one is -32602 (InvalidParams), as the spec asks. */
export function offsetOfCursor(cursor: string | undefined): number {
  const offset = cursorOffset(cursor);
  if (offset === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  return offset;
}
