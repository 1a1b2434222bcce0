import { type Kysely, sql } from 'kysely';
import type { ContextQuery } from '../../../domain/memories/memory-store.js';
import type { Schema } from '../../schema.js';
import { type ContextRow, contextCandidatesByUnion, contextRanks } from '../memory-context.js';
import type { MemoryFilterApplier } from '../sql-dialect.js';
import { descendantOf } from './paths.js';

/**
 * Up to this many distinct descendant projects, the context reads each one by equality (below); beyond
 * it, one index range over the whole subtree (the union). Each project costs a few index seeks.
 */
export const MAX_DESCENDANT_PROJECTS = 32;

/**
 * The distinct projects strictly under `project` that hold memories of the user, in byte order, or
 * `undefined` when there are more than `max`. A loose index scan: one seek of (user_id, project_name) per
 * name found, whatever the number of memories under each.
 */
export async function descendantProjects(
  db: Kysely<Schema>,
  userId: string,
  project: string,
  max: number,
): Promise<string[] | undefined> {
  const low = `${project}/`;
  const high = `${project}0`; // '0' is '/' + 1: paths.ts
  const { rows } = await sql<{ name: string }>`with recursive d(name) as (
      select (select min(project_name) from memories
        where user_id = ${userId} and project_name >= ${low} and project_name < ${high})
      union all
      select (select min(project_name) from memories
        where user_id = ${userId} and project_name > d.name and project_name < ${high})
      from d where d.name is not null
    )
    select name from d where name is not null limit ${max + 1}`.execute(db);
  return rows.length > max ? undefined : rows.map((row) => row.name);
}

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
  const scope = query.scope;
  const descendants = scope && (await descendantProjects(db, userId, scope.project, MAX_DESCENDANT_PROJECTS));
  if (!scope || !descendants)
    return contextCandidatesByUnion(db, userId, query, filter, (project) =>
      descendantOf('memories.project_name', project),
    );

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
}
