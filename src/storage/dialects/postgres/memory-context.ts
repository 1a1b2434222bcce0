import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { ContextQuery } from '../../../domain/memories/memory-store.js';
import type { Schema } from '../../schema.js';
import {
  CONTEXT_COLUMNS,
  type ContextRow,
  contextByEquality,
  contextRanks,
  descendantProjectsBy,
  MAX_DESCENDANT_PROJECTS,
} from '../memory-context.js';
import type { MemoryFilterApplier } from '../sql-dialect.js';
import { descendantOf } from './paths.js';

export { MAX_DESCENDANT_PROJECTS };

/** The distinct projects strictly under `project` (memory-context.ts's loose scan, `project_name collate "C"`). */
export const descendantProjects = (db: Kysely<Schema>, userId: string, project: string, max: number) =>
  descendantProjectsBy(db, sql<string>`project_name collate "C"`, userId, project, max);

const DIALECT = {
  descendantProjects,
  descendantOf: (project: string) => descendantOf('memories.project_name', project),
};

/**
 * PostgreSQL's automatic context: every project group read by equality, as SQLite does
 * (sqlite/memory-context.ts). The (project, group) pairs — the project, each ancestor, and each descendant
 * project, the descendants sharing one group — are crossed with the priority ranks; for each pair a
 * lateral subquery reads the newest `limit` rows from the (user_id, project_name, priority_rank,
 * recency_ms) index, and a window keeps the newest `limit` per group and rank, so the descendants together
 * give what one range would. Global memories (NULL, no equality) are read per rank from their partial
 * index (migration 0017).
 *
 * The union of a subquery per group and rank (memory-context.ts) read a descendant range per rank: the
 * planner walked the user's (user_id, priority_rank, recency_ms) index when it expected the range to fill
 * early, and for a rank the subtree lacks read every memory of that rank (43,392 rows, 80 ms at 100k),
 * and planning its fifteen subqueries took ~2 ms. This reads `limit` entries per (project, rank), in one
 * short statement.
 */
export async function postgresContextCandidates(
  db: Kysely<Schema>,
  userId: string,
  query: ContextQuery,
  filter: MemoryFilterApplier,
): Promise<ContextRow[]> {
  return contextByEquality(db, userId, query, filter, DIALECT, async (scope, descendants) => {
    // [project_name, group]: each project its own group but the descendants, which share one.
    const groups: Array<[string, number]> = [
      ...[scope.project, ...scope.ancestors].map((p, i): [string, number] => [p, i]),
      ...descendants.map((p): [string, number] => [p, -1]),
    ];
    const newest = (where: RawBuilder<boolean>) =>
      db
        .selectFrom('memories')
        .select(CONTEXT_COLUMNS)
        .where('memories.user_id', '=', userId)
        .where(where)
        .where(sql<boolean>`memories.priority_rank = r.rank`)
        .where(filter)
        .orderBy('memories.recency_ms', 'desc')
        // Ranking breaks recency ties by the newer row (compareRanked), so must the cut.
        .orderBy('memories.seq', 'desc')
        .limit(query.limit);
    const ranks = contextRanks(query);
    const { rows } = await sql<ContextRow>`select seq, project_name, priority, recency_ms, pinned from (
      select m.seq, m.project_name, m.priority, m.recency_ms, m.pinned,
        row_number() over (partition by g.grp, r.rank order by m.recency_ms desc, m.seq desc) as n
      from unnest(${groups.map(([p]) => p)}::text[], ${groups.map(([, g]) => g)}::int[]) as g(name, grp)
      cross join unnest(${ranks}::int[]) as r(rank)
      cross join lateral (${newest(sql<boolean>`memories.project_name = g.name`)}) as m
    ) as projects where n <= ${query.limit}
    union all
    select m.seq, m.project_name, m.priority, m.recency_ms, m.pinned
    from unnest(${ranks}::int[]) as r(rank)
    cross join lateral (${newest(sql<boolean>`memories.project_name is null`)}) as m`.execute(db);
    return rows;
  });
}
