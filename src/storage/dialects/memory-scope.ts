import type { ExpressionBuilder } from 'kysely';
import type { KeywordQuery, ProjectScope } from '../../domain/memories/memory-store.js';
import type { Schema } from '../schema.js';
import type { MemorySearch } from './sql-dialect.js';

/** A memory is in `scope`: the project itself, one of its ancestors, global, or a descendant. */
export function scopeCondition(
  eb: ExpressionBuilder<Schema, 'memories'>,
  scope: ProjectScope | undefined,
  dialect: Pick<MemorySearch, 'descendantOf'>,
) {
  if (!scope) return eb.lit(true);
  const projects = [scope.project, ...scope.ancestors];
  return eb.or([
    eb('memories.project_name', 'in', projects),
    eb('memories.project_name', 'is', null),
    dialect.descendantOf(eb, scope.project),
  ]);
}

/**
 * The query filters by metadata, pin or stale state: conditions on the memories' rows beyond the words, the
 * scope and visibility (SQLite must then join the rows; PostgreSQL cannot tell the matches from word counts).
 */
export const filtersRows = (query: Omit<KeywordQuery, 'limit' | 'only'>) =>
  query.category !== undefined ||
  query.priority !== undefined ||
  query.tags.length > 0 ||
  query.pinned !== undefined ||
  query.hiddenAt !== undefined;
