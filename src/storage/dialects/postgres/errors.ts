const UNAVAILABLE_CODES = new Set([
  // The network, as node reports it.
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // Class 08 (connection exception) and 57P (operator intervention: shutdown, restart).
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
  '08P01',
  '57P01',
  '57P02',
  '57P03',
  // too_many_connections, cannot_connect_now
  '53300',
]);

/** What pg and PostgreSQL say when there is no code to go by (pool timeouts, a refused database). */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|connection is closed|Client has encountered a connection error|not currently accepting connections|the database system is (?:starting up|shutting down)|too many clients/i;

export const isUniqueViolation = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === '23505';

export function isUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}
