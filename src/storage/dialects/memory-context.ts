import { type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { ContextQuery } from '../../domain/memories/memory-store.js';
import type { Schema } from '../schema.js';
import type { MemoryFilterApplier } from './sql-dialect.js';

/** A context candidate as the database gives it (memory-store.ts turns it into a ranking row). */
export interface ContextRow {
  seq: unknown;
  project_name: string | null;
  priority: string | null;
  recency_ms: unknown;
  pinned: unknown;
}

/** The columns of a `ContextRow`. */
export const CONTEXT_COLUMNS = [
  'memories.seq',
  'memories.project_name',
  'memories.priority',
  'memories.recency_ms',
  'memories.pinned',
] as const;

/** `memories.priority_rank`: a priority as a number that sorts (no priority counts as medium). */
export const PRIORITY_RANK: Record<string, number> = { high: 2, medium: 1, low: 0 };
const RANKS = [2, 1, 0];

/** The priority ranks a context query reads: the one asked for, or all of them, highest first. */
export const contextRanks = (query: Pick<ContextQuery, 'priority'>): number[] =>
  query.priority !== undefined ? [PRIORITY_RANK[query.priority] ?? 1] : RANKS;

type Where = (eb: ExpressionBuilder<Schema, 'memories'>) => ReturnType<ExpressionBuilder<Schema, 'memories'>['and']>;

/**
 * The automatic context's candidates as one `UNION ALL` of a subquery per group and priority rank: a group
 * per project (itself, each ancestor, global), one for all its descendants (an index range), or one for
 * everything without a scope. Within a group and rank only recency differs (ranking.ts), so each subquery
 * keeps its `limit` most recent rows.
 *
 * PostgreSQL's plan (an index range per group, migration 0017). SQLite uses it without a scope and for a
 * project with more descendant projects than its per-project statement takes (sqlite/memory-context.ts).
 */
export async function contextCandidatesByUnion(
  db: Kysely<Schema>,
  userId: string,
  query: ContextQuery,
  filter: MemoryFilterApplier,
  /** The dialect's `project_name` is a strict descendant of `project` (an index range). */
  descendantOf: (project: string) => Expression<SqlBool>,
): Promise<ContextRow[]> {
  const scope = query.scope;
  const groups: Where[] = scope
    ? [
        ...[scope.project, ...scope.ancestors].map(
          (p): Where =>
            (eb) =>
              eb.and([eb('memories.project_name', '=', p)]),
        ),
        (eb) => eb.and([eb('memories.project_name', 'is', null)]),
        (eb) => eb.and([descendantOf(scope.project)]),
      ]
    : [(eb) => eb.and([])];
  const selects = groups.flatMap((group) =>
    contextRanks(query).map((rank) =>
      db
        .selectFrom(
          db
            .selectFrom('memories')
            .select(CONTEXT_COLUMNS)
            .where('memories.user_id', '=', userId)
            .where('memories.priority_rank', '=', rank)
            .where(group)
            .where(filter)
            .orderBy('memories.recency_ms', 'desc')
            // Ranking breaks recency ties by the newer row (compareRanked), so must the cut: memories read by
            // one search share their access time, and without this PostgreSQL may keep any of the tied rows.
            .orderBy('memories.seq', 'desc')
            .limit(query.limit)
            .as('g'),
        )
        .selectAll(),
    ),
  );
  const [first, ...rest] = selects;
  if (!first) return [];
  return rest.reduce((union, next) => union.unionAll(next), first).execute();
}

/**
 * Up to this many distinct descendant projects, the dialects' context statements read each one by
 * equality; beyond it, one index range over the whole subtree per rank (the union). Each project costs a
 * few index seeks.
 */
export const MAX_DESCENDANT_PROJECTS = 32;

/**
 * The distinct projects strictly under `project` that hold memories of the user, in byte order, or
 * `undefined` when there are more than `max`. A loose index scan: one seek of (user_id, `column`) per name
 * found, whatever the number of memories under each. `column` is `project_name` as the dialect's index
 * orders it in bytes (PostgreSQL: under `COLLATE "C"`, migration 0017).
 */
export async function descendantProjectsBy(
  db: Kysely<Schema>,
  column: RawBuilder<string>,
  userId: string,
  project: string,
  max: number,
): Promise<string[] | undefined> {
  const low = `${project}/`;
  const high = `${project}0`; // '0' is '/' + 1: paths.ts
  const { rows } = await sql<{ name: string }>`with recursive d(name) as (
      select (select min(${column}) from memories
        where user_id = ${userId} and ${column} >= ${low} and ${column} < ${high})
      union all
      select (select min(${column}) from memories
        where user_id = ${userId} and ${column} > d.name and ${column} < ${high})
      from d where d.name is not null
    )
    select name from d where name is not null limit ${max + 1}`.execute(db);
  return rows.length > max ? undefined : rows.map((row) => row.name);
}

/**
 * The automatic context by equality, both dialects: with a scope whose subtree holds at most
 * MAX_DESCENDANT_PROJECTS projects, `byEquality` reads every group by equality (the dialect's one
 * statement); without a scope, or with more, the union.
 */
export async function contextByEquality(
  db: Kysely<Schema>,
  userId: string,
  query: ContextQuery,
  filter: MemoryFilterApplier,
  dialect: {
    descendantProjects: (
      db: Kysely<Schema>,
      userId: string,
      project: string,
      max: number,
    ) => Promise<string[] | undefined>;
    descendantOf: (project: string) => Expression<SqlBool>;
  },
  byEquality: (scope: NonNullable<ContextQuery['scope']>, descendants: string[]) => Promise<ContextRow[]>,
): Promise<ContextRow[]> {
  const scope = query.scope;
  const descendants = scope && (await dialect.descendantProjects(db, userId, scope.project, MAX_DESCENDANT_PROJECTS));
  if (!scope || !descendants) return contextCandidatesByUnion(db, userId, query, filter, dialect.descendantOf);
  return byEquality(scope, descendants);
}
