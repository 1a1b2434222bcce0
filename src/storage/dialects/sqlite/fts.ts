/**
 * Shared pieces of the SQLite FTS5 indexes (memories and artifacts): the per-user owner token that
 * scopes every index query to its user, and quoting for words put into an FTS5 query.
 */
export const ftsOwnerToken = (userId: string): string => `u${userId.replace(/^usr_/, '').toLowerCase()}`;

/** A word as an FTS5 string: never read as query syntax (AND, NEAR, column filters…). */
export const ftsQuote = (word: string): string => `"${word.replace(/"/g, '""')}"`;
