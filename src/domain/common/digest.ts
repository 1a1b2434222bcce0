import { createHash } from 'node:crypto';

/**
 * Hex SHA-256 of a string's UTF-8 bytes: the one digest every area uses (an artifact's `sha256`, stored
 * API-key, session and invite hashes, index tokens derived from ids and paths). Migrations keep their own
 * copy: they never import application code.
 */
export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
