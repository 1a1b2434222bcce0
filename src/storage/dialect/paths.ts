import { type RawBuilder, sql } from 'kysely';
import type { MigrationDialect } from '../migrations/index.js';

/**
 * `column` names a strict descendant of `project` (`project/…`), exactly and case-sensitively.
 * SQLite compares bytes, so every such name sorts in ['p/', 'p0') ('0' is '/' + 1) and an index range
 * serves it; PostgreSQL collations may ignore punctuation, so it uses starts_with.
 */
export function descendantOf(dialect: MigrationDialect, column: string, project: string): RawBuilder<boolean> {
  const ref = sql.ref(column);
  return dialect === 'postgres'
    ? sql<boolean>`starts_with(${ref}, ${`${project}/`})`
    : sql<boolean>`(${ref} >= ${`${project}/`} and ${ref} < ${`${project}0`})`;
}
