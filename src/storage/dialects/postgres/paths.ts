import { type RawBuilder, sql } from 'kysely';

/**
 * `column` names a strict descendant of `project` (`project/…`), exactly and case-sensitively.
 * PostgreSQL collations may ignore punctuation, so a range would not be exact: starts_with is.
 */
export function descendantOf(column: string, project: string): RawBuilder<boolean> {
  return sql<boolean>`starts_with(${sql.ref(column)}, ${`${project}/`})`;
}
