import { ConflictError } from '../domain/common/errors.js';
import type { SqlDialect } from './dialects/sql-dialect.js';

/** Runs a write that may hit a unique key already taken; a taken key becomes a ConflictError saying `message`. */
export async function writeOrConflict(dialect: SqlDialect, write: () => Promise<unknown>, message: string) {
  try {
    await write();
  } catch (error) {
    if (dialect.isUniqueViolation(error)) throw new ConflictError(message);
    throw error;
  }
}
