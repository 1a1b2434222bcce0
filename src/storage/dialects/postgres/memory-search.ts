import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { KeywordQuery } from '../../../domain/memories/memory-store.js';
import type { Schema } from '../../schema.js';
import { filtersRows, scopeCondition } from '../memory-scope.js';
import { addSearchStats, distinctTokens, readSearchStats } from '../memory-stats.js';
import type { IndexedMemory, KeywordRow, MemoryFilterApplier, MemorySearch } from '../sql-dialect.js';
import { postgresContextCandidates } from './memory-context.js';
import { descendantOf } from './paths.js';

/**
 * PostgreSQL: a GIN index over the analysed words (`search_tokens`, generated from `search_terms`, the same
 * tokens SQLite's FTS5 rows hold) picks the candidates, scoped by user in the same query; the application
 * scores them (ranking.ts) with the user's own statistics from `memory_search_stats` and `memory_terms`,
 * kept in each write's transaction (migration 0007). So both databases rank alike. The candidate streams
 * (newest matches, newest high-priority, newest in the project) walk `memory_postings` instead (migration
 * 0020): per word, the user's memories holding it newest first, stopping at the stream's limit.
 */

const lexeme = (term: string) => `'${term.replace(/['\\]/g, '')}'`;

/** A tsquery of any of the terms, written as lexemes (no parser: the terms are already analysed). */
const anyOf = (terms: readonly string[]) => sql`${terms.map(lexeme).join(' | ')}::tsquery`;

/** A tsquery of any of `terms` in a memory that lacks `except`. */
const anyOfExcept = (terms: readonly string[], except: string) =>
  sql`${`(${terms.map(lexeme).join(' | ')}) & !${lexeme(except)}`}::tsquery`;

const distinct = (terms: readonly string[]) => [...new Set(terms.filter(Boolean))];

function matches(db: Kysely<Schema>, userId: string, query: Omit<KeywordQuery, 'limit'>, filter: MemoryFilterApplier) {
  return db
    .selectFrom('memories')
    .where('memories.user_id', '=', userId)
    .where(sql<boolean>`search_tokens @@ ${anyOf(distinct(query.terms))}`)
    .where((eb) => scopeCondition(eb, query.scope, postgresMemorySearch))
    .$if(query.only === 'high', (qb) => qb.where('memories.priority', '=', 'high'))
    .$if(query.only === 'project' && query.scope !== undefined, (qb) =>
      qb.where('memories.project_name', '=', query.scope?.project ?? ''),
    )
    .where(filter);
}

/**
 * The writes of the memory's rows in `memory_postings`: `added` terms inserted, `removed` ones deleted and,
 * when its priority or project changed, the `kept` ones rewritten (they carry both). Disjoint rows, so they
 * can run as the data-modifying parts of one statement.
 */
function postingWrites(
  memory: Pick<IndexedMemory, 'seq' | 'userId'> & Partial<Pick<IndexedMemory, 'projectName' | 'priority'>>,
  added: string[],
  removed: string[],
  kept: string[],
): RawBuilder<unknown>[] {
  const high = memory.priority === 'high';
  const writes: RawBuilder<unknown>[] = [];
  if (removed.length > 0) {
    writes.push(sql`delete from memory_postings
      where user_id = ${memory.userId} and term = any(${removed}::text[]) and seq = ${memory.seq}`);
  }
  if (kept.length > 0) {
    writes.push(sql`update memory_postings set high = ${high}, project_name = ${memory.projectName ?? null}
      where user_id = ${memory.userId} and term = any(${kept}::text[]) and seq = ${memory.seq}`);
  }
  if (added.length > 0) {
    writes.push(sql`insert into memory_postings (user_id, term, seq, high, project_name)
      select ${memory.userId}, t.term, ${memory.seq}, ${high}, ${memory.projectName ?? null}
      from unnest(${added}::text[]) as t(term)`);
  }
  return writes;
}

/**
 * Adds each term's change to the user's document counts, rows locked in the order of `terms` (sorted by the
 * caller: concurrent writers of one user then never deadlock).
 */
const termsUpsert = (userId: string, terms: readonly string[], changes: readonly number[]) =>
  sql`insert into memory_terms (user_id, term, documents)
    select ${userId}, t.term, t.change from unnest(${terms}::text[], ${changes}::int[]) as t(term, change)
    on conflict (user_id, term) do update set documents = memory_terms.documents + excluded.documents`;

/**
 * The newest `query.limit` memories that hold `term` and pass the stream's conditions: the user's postings
 * of the word walked backwards along the primary key, narrowed by scope, priority and project inside the
 * index (the columns it carries), then each memory read by its key for visibility and filters. The memory
 * is read in a lateral subquery kept apart (`offset 0`): joined plainly, the planner merged the postings
 * with the primary key of `memories` walked backwards, past every other user's newer memories.
 */
function postingStream(
  db: Kysely<Schema>,
  userId: string,
  term: string | RawBuilder<string>,
  query: KeywordQuery,
  filter: MemoryFilterApplier,
) {
  const scope = query.scope;
  return db
    .selectFrom('memory_postings as p')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('memories')
          .select([
            'memories.seq',
            // A near-duplicate check answers with ids: read here, not by another round trip (dedupe.ts).
            'memories.id',
            'memories.project_name',
            'memories.priority',
            'memories.recency_ms',
            'memories.pinned',
            'memories.search_terms',
            'memories.token_count',
          ])
          .whereRef('memories.seq', '=', 'p.seq')
          .where('memories.user_id', '=', userId)
          .where(filter)
          .offset(0)
          .as('m'),
      (join) => join.onTrue(),
    )
    .select([
      'm.seq',
      'm.id',
      'm.project_name',
      'm.priority',
      'm.recency_ms',
      'm.pinned',
      'm.search_terms',
      'm.token_count',
    ])
    .where('p.user_id', '=', userId)
    .where('p.term', '=', term)
    .$if(scope !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('p.project_name', 'in', [scope?.project ?? '', ...(scope?.ancestors ?? [])]),
          eb('p.project_name', 'is', null),
          descendantOf('p.project_name', scope?.project ?? ''),
        ]),
      ),
    )
    .$if(query.only === 'high', (qb) => qb.where('p.high', '=', true))
    .$if(query.only === 'project' && scope !== undefined, (qb) => qb.where('p.project_name', '=', scope?.project ?? ''))
    .orderBy('p.seq', 'desc')
    .limit(query.limit);
}

/**
 * Adds each term's change (+1 or −1) to the user's document counts in one statement, terms in sorted order:
 * concurrent writers of the same user lock the rows in the same order, so they never deadlock. Counts that
 * reach 0 are removed. `postings` (postingWrites) run in the same statement, as CTEs: one round trip less
 * per write.
 */
async function changeTerms(
  trx: Kysely<Schema>,
  userId: string,
  added: string[],
  removed: string[],
  postings: RawBuilder<unknown>[],
): Promise<void> {
  const changes = [...added.map((term) => [term, 1] as const), ...removed.map((term) => [term, -1] as const)].sort(
    ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0),
  );
  if (changes.length === 0) {
    for (const write of postings) await write.execute(trx);
    return;
  }
  const ctes =
    postings.length === 0
      ? sql``
      : sql`with ${sql.join(postings.map((write, i) => sql`${sql.raw(`postings_${i}`)} as (${write})`))} `;
  const terms = changes.map(([term]) => term);
  await sql`${ctes}${termsUpsert(
    userId,
    terms,
    changes.map(([, change]) => change),
  )}`.execute(trx);
  if (removed.length > 0) {
    await sql`delete from memory_terms
      where user_id = ${userId} and term = any(${removed}::text[]) and documents <= 0`.execute(trx);
  }
}

/** Rebuilds every user's statistics, term counts and postings from `memories` (after a bulk copy). */
export async function rebuildMemoryVocabulary(db: Kysely<Schema>): Promise<void> {
  await sql`delete from memory_search_stats`.execute(db);
  await sql`insert into memory_search_stats (user_id, documents, tokens)
    select user_id, count(*), sum(token_count) from memories group by user_id`.execute(db);
  await sql`delete from memory_terms`.execute(db);
  await sql`insert into memory_terms (user_id, term, documents)
    select m.user_id, t.term, count(*) from memories m
    cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
    where t.term <> ''
    group by m.user_id, t.term`.execute(db);
  await sql`delete from memory_postings`.execute(db);
  await sql`insert into memory_postings (user_id, term, seq, high, project_name)
    select m.user_id, t.term, m.seq, coalesce(m.priority = 'high', false), m.project_name from memories m
    cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
    where t.term <> ''`.execute(db);
}

/** Anything but the words and visibility that narrows the matches: a scope, a stream, metadata filters. */
const narrowed = (query: Omit<KeywordQuery, 'limit' | 'only'> & { only?: KeywordQuery['only'] }) =>
  query.scope !== undefined || query.only !== undefined || filtersRows(query);

/**
 * The user's visible memories holding any of `terms`, nothing else narrowing them, without counting every
 * match (a word in 73,000 memories: ~100 ms). With A the term the user's memories hold most often (read
 * from memory_terms) and R the others:
 *
 *   matches(A or R) = documents(A) − hidden memories holding A + visible matches of (R and not A)
 *
 * documents(A) is A's count in memory_terms (kept in each write's transaction), the hidden ones are a range
 * of the visible_until index, and only the matches of the rarer terms that lack A are counted (the GIN
 * index takes `(R) & !A` as one query). Exact for any choice of A, in one statement (one snapshot); the
 * choice only decides the speed. SQLite counts a single word the same way (fts5vocab).
 */
async function countByMostFrequent(
  db: Kysely<Schema>,
  userId: string,
  terms: readonly string[],
  visibleAt: string | undefined,
  visible: MemoryFilterApplier,
): Promise<number> {
  const known = await db
    .selectFrom('memory_terms')
    .select(['term', 'documents'])
    .where('user_id', '=', userId)
    .where(sql<boolean>`term = any(${[...terms]}::text[])`)
    .execute();
  const most = known.reduce<{ term: string; documents: number } | undefined>((best, row) => {
    const documents = Number(row.documents);
    return best === undefined || documents > best.documents ? { term: row.term, documents } : best;
  }, undefined)?.term;
  if (most === undefined) {
    // None of the words is in the user's vocabulary (at that moment): counting their matches is cheap.
    const row = await db
      .selectFrom('memories')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('memories.user_id', '=', userId)
      .where(sql<boolean>`search_tokens @@ ${anyOf(terms)}`)
      .where(visible)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const rest = terms.filter((term) => term !== most);
  const documents = db
    .selectFrom('memory_terms')
    .select('documents')
    .where('user_id', '=', userId)
    .where('term', '=', most);
  const hidden = (at: string) =>
    db
      .selectFrom('memories')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .where('visible_until', '<=', at)
      .where(sql<boolean>`search_tokens @@ ${anyOf([most])}`);
  const others = db
    .selectFrom('memories')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('memories.user_id', '=', userId)
    .where(sql<boolean>`search_tokens @@ ${anyOfExcept(rest, most)}`)
    .where(visible);
  const row = await db
    .selectNoFrom([
      sql<string>`coalesce((${documents}), 0)`.as('documents'),
      (visibleAt === undefined ? sql<string>`0` : sql<string>`(${hidden(visibleAt)})`).as('hidden'),
      (rest.length === 0 ? sql<string>`0` : sql<string>`(${others})`).as('others'),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.documents) - Number(row.hidden) + Number(row.others);
}

/** keywordCandidates' statement (undefined for no words), for a caller that sends it with others. */
function keywordCandidatesQuery(
  db: Kysely<Schema>,
  userId: string,
  query: KeywordQuery,
  filter: MemoryFilterApplier,
): RawBuilder<KeywordRow> | undefined {
  const terms = distinct(query.terms);
  if (terms.length === 0) return undefined;
  // The newest matches of any word are among the newest of each word: one stream per word, merged.
  if (terms.length === 1) return sql<KeywordRow>`${postingStream(db, userId, terms[0] as string, query, filter)}`;
  // One statement for any number of words, planned once: a lateral stream per element of the array.
  const stream = postingStream(db, userId, sql<string>`t.term`, query, filter);
  return sql<KeywordRow>`select distinct on (s.seq) s.* from unnest(${terms}::text[]) as t(term)
    cross join lateral (${stream}) as s
    order by s.seq desc limit ${query.limit}`;
}

export const postgresMemorySearch: MemorySearch = {
  async index(trx, memory, previous) {
    const next = distinctTokens(memory.searchTerms);
    const before = new Set(previous ? distinctTokens(previous.searchTerms) : []);
    const after = new Set(next);
    const added = next.filter((term) => !before.has(term));
    const removed = [...before].filter((term) => !after.has(term));
    const moved =
      previous !== undefined &&
      (previous.projectName !== memory.projectName || (previous.priority === 'high') !== (memory.priority === 'high'));
    const kept = moved ? next.filter((term) => before.has(term)) : [];
    await changeTerms(trx, memory.userId, added, removed, postingWrites(memory, added, removed, kept));
    await addSearchStats(trx, memory.userId, previous ? 0 : 1, memory.tokenCount - (previous?.tokenCount ?? 0));
  },

  newMemoryParts: ({ userId, terms, counts, documents, tokens }) => [
    [
      'postings',
      // Each new memory's distinct words, split from its `search_terms` as the rebuild does.
      sql`insert into memory_postings (user_id, term, seq, high, project_name)
        select m.user_id, t.term, m.seq, coalesce(m.priority = 'high', false), m.project_name from m
        cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) as t
        where t.term <> ''`,
    ],
    ['terms', sql`${termsUpsert(userId, terms, counts)} returning 1`],
    // Reads `terms` to the end first: its row locks are taken before the statistics row's, the order of
    // every other write of a user's vocabulary (index, unindex), so no two of them deadlock.
    [
      'stats',
      sql`insert into memory_search_stats (user_id, documents, tokens)
        select ${userId}, ${documents}::bigint, ${tokens}::bigint from (select count(*) from terms) as after_terms
        on conflict (user_id) do update set documents = memory_search_stats.documents + excluded.documents,
          tokens = memory_search_stats.tokens + excluded.tokens`,
    ],
  ],

  async unindex(trx, memory) {
    const terms = distinctTokens(memory.searchTerms);
    await changeTerms(trx, memory.userId, [], terms, postingWrites(memory, [], terms, []));
    await addSearchStats(trx, memory.userId, -1, -memory.tokenCount);
  },

  sameOwner: (eb, userId) => eb('memories.user_id', '=', userId),

  descendantOf: (_eb, project) => descendantOf('memories.project_name', project),

  async keywordCandidates(db, userId, query, filter) {
    const candidates = keywordCandidatesQuery(db, userId, query, filter);
    return candidates === undefined ? [] : (await db.executeQuery(candidates.compile(db))).rows;
  },

  keywordCandidatesQuery,

  async countKeywordMatches(db, userId, query, filter) {
    const terms = distinct(query.terms);
    if (terms.length === 0) return 0;
    if (narrowed(query)) {
      const row = await matches(db, userId, query, filter)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }
    return countByMostFrequent(db, userId, terms, query.visibleAt, filter);
  },

  async termStatistics(db, userId, terms) {
    const [{ n, averageLength }, rows] = await Promise.all([
      readSearchStats(db, userId),
      terms.length === 0
        ? []
        : db
            .selectFrom('memory_terms')
            .select(['term', 'documents'])
            .where('user_id', '=', userId)
            .where(sql<boolean>`term = any(${[...terms]}::text[])`)
            .execute(),
    ]);
    const found = new Map(rows.map((row) => [row.term, Number(row.documents)]));
    return { documents: n, averageLength, frequencies: terms.map((term) => found.get(term) ?? 0) };
  },

  contextCandidates: postgresContextCandidates,

  async termsWithPrefix(db, userId, prefix, limit, scan) {
    if (prefix === '' || limit <= 0) return [];
    const rows = await db
      .selectFrom('memory_terms')
      .select(['term', 'documents'])
      .where('user_id', '=', userId)
      .where('term', '>', prefix)
      .where('term', '<', `${prefix}\u{10FFFF}`)
      .orderBy('term')
      .limit(scan)
      .execute();
    return rows
      .map((row) => ({ term: row.term, documents: Number(row.documents) }))
      .sort((a, b) => b.documents - a.documents || (a.term < b.term ? -1 : 1))
      .slice(0, limit);
  },
};
