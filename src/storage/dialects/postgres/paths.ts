import { type RawBuilder, sql } from 'kysely';

/**
 * `column` names a strict descendant of `project` (`project/…`), exactly and case-sensitively. Compared in
 * the "C" collation, which orders bytes: every such name sorts in ['p/', 'p0') ('0' is '/' + 1), and the
 * (user_id, project_name COLLATE "C", …) index (migration 0017) serves the range. The database's own
 * collation may ignore punctuation, so a range in it would not be exact.
 */
export function descendantOf(column: string, project: string): RawBuilder<boolean> {
  const ref = sql.ref(column);
  return sql<boolean>`(${ref} collate "C" >= ${`${project}/`} and ${ref} collate "C" < ${`${project}0`})`;
}
