import type { ExpressionBuilder } from 'kysely';
import type { ProjectScope } from '../../domain/memories/memory-store.js';
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
