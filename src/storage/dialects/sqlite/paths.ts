import { type RawBuilder, sql } from 'kysely';

/**
 * `column` names a strict descendant of `project` (`project/…`), exactly and case-sensitively.
 * SQLite compares bytes, so every such name sorts in ['p/', 'p0') ('0' is '/' + 1) and an index range
 * serves it.
 */
export function descendantOf(column: string, project: string): RawBuilder<boolean> {
  const ref = sql.ref(column);
  return sql<boolean>`(${ref} >= ${`${project}/`} and ${ref} < ${`${project}0`})`;
}
