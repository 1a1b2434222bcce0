import { type Kysely, sql } from 'kysely';
import type { ContextQuery } from '../../../domain/memories/memory-store.js';
import type { Schema } from '../../schema.js';
import {
  type ContextRow,
  contextByEquality,
  contextRanks,
  descendantProjectsBy,
  MAX_DESCENDANT_PROJECTS,
} from '../memory-context.js';
import type { MemoryFilterApplier } from '../sql-dialect.js';
import { descendantOf } from './paths.js';

export { MAX_DESCENDANT_PROJECTS };

/** The distinct projects strictly under `project` (memory-context.ts's loose scan, `project_name`). */
export const descendantProjects = (db: Kysely<Schema>, userId: string, project: string, max: number) =>
  descendantProjectsBy(db, sql<string>`project_name`, userId, project, max);

const DIALECT = {
  descendantProjects,
  descendantOf: (project: string) => descendantOf('memories.project_name', project),
};

/**
 * SQLite's automatic context: one statement over a list of (project, group) pairs, every one an equality
 * on `project_name` (the project, its ancestors, global as NULL, and each descendant project), crossed
 * with the priority ranks. For each pair the correlated subquery reads the newest `limit` rows straight
 * from the (user_id, project_name, priority_rank, recency_ms) index, and the window keeps the newest
 * `limit` per group and rank, so all descendants together give what one range would.
 *
 * The union of a subquery per group and rank (memory-context.ts) read a top-level project's whole
 * subtree once per rank (every index entry of the range, a row lookup for each one of the rank, then a
 * sort), ~2.5 ms at 100k memories; this reads `limit` entries per (project, rank): ~0.3 ms, and one short
 * statement to prepare instead of a dozen subqueries (docs/performance.md, session 8).
 */
export async function sqliteContextCandidates(
  db: Kysely<Schema>,
  userId: string,
  query: ContextQuery,
  filter: MemoryFilterApplier,
): Promise<ContextRow[]> {
  return contextByEquality(db, userId, query, filter, DIALECT, async (scope, descendants) => {
    // [project_name (null: global), group]: each project its own group but the descendants, which share one.
    const groups: Array<[string | null, number]> = [
      ...[scope.project, ...scope.ancestors].map((p, i): [string, number] => [p, i]),
      [null, -1],
      ...descendants.map((p): [string, number] => [p, -2]),
    ];
    const newest = db
      .selectFrom('memories')
      .select('memories.seq')
      .where('memories.user_id', '=', userId)
      .where(sql<boolean>`memories.project_name is (g.value ->> 0)`)
      .where(sql<boolean>`memories.priority_rank = r.value`)
      .where(filter)
      .orderBy('memories.recency_ms', 'desc')
      // Ranking breaks recency ties by the newer row (compareRanked), so must the cut.
      .orderBy('memories.seq', 'desc')
      .limit(query.limit);
    const { rows } = await sql<ContextRow>`select seq, project_name, priority, recency_ms, pinned from (
      select m.seq, m.project_name, m.priority, m.recency_ms, m.pinned,
        row_number() over (partition by g.value ->> 1, r.value order by m.recency_ms desc, m.seq desc) as n
      from json_each(${JSON.stringify(groups)}) as g, json_each(${JSON.stringify(contextRanks(query))}) as r,
        memories as m
      where m.seq in ${newest}
    ) where n <= ${query.limit}`.execute(db);
    return rows;
  });
}
