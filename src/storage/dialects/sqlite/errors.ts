const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** Another connection holds the lock longer than busy_timeout: a retry can succeed. */
const UNAVAILABLE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

export const isUniqueViolation = (error: unknown): boolean => UNIQUE_CODES.has(codeOf(error) as string);

export const isUnavailable = (error: unknown): boolean => UNAVAILABLE_CODES.has(codeOf(error) as string);
