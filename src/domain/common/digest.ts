import { hash } from 'node:crypto';

/**
 * Hex SHA-256 of a string's UTF-8 bytes: the one digest every area uses (an artifact's `sha256`, stored
 * API-key, session and invite hashes, index tokens derived from ids and paths). Migrations keep their own
 * copy: they never import application code.
 *
 * The one-shot `crypto.hash` rather than `createHash(…).update(…).digest(…)`: the latter makes a native
 * Hash object whose weak handle every scavenge must finalise, and every authenticated request hashes its
 * key (about a third of each scavenge's pause under the hot read, docs/performance.md, session 10).
 */
export const sha256Hex = (value: string): string => hash('sha256', value, 'hex');
