import { type Kysely, sql } from 'kysely';
import type { KeywordQuery } from '../../../domain/memories/memory-store.js';
import type { Schema } from '../../schema.js';
import { filtersRows, scopeCondition } from '../memory-scope.js';
import { addSearchStats, distinctTokens, readSearchStats } from '../memory-stats.js';
import type { MemoryFilterApplier, MemorySearch } from '../sql-dialect.js';
import { postgresContextCandidates } from './memory-context.js';
import { descendantOf } from './paths.js';

/**
 * PostgreSQL: a GIN index over the analysed words (`search_tokens`, generated from `search_terms`, the same
 * tokens SQLite's FTS5 rows hold) picks the candidates, scoped by user in the same query; the application
 * scores them (ranking.ts) with the user's own statistics from `memory_search_stats` and `memory_terms`,
 * kept in each write's transaction (migration 0007). So both databases rank alike.
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
 * Adds each term's change (+1 or −1) to the user's document counts in one statement, terms in sorted order:
 * concurrent writers of the same user lock the rows in the same order, so they never deadlock. Counts that
 * reach 0 are removed.
 */
async function changeTerms(trx: Kysely<Schema>, userId: string, added: string[], removed: string[]): Promise<void> {
  const changes = [...added.map((term) => [term, 1] as const), ...removed.map((term) => [term, -1] as const)].sort(
    ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0),
  );
  if (changes.length === 0) return;
  await sql`insert into memory_terms (user_id, term, documents)
    select ${userId}, t.term, t.change
    from unnest(${changes.map(([term]) => term)}::text[], ${changes.map(([, change]) => change)}::int[]) as t(term, change)
    on conflict (user_id, term) do update set documents = memory_terms.documents + excluded.documents`.execute(trx);
  if (removed.length > 0) {
    await sql`delete from memory_terms
      where user_id = ${userId} and term = any(${removed}::text[]) and documents <= 0`.execute(trx);
  }
}

/** Rebuilds every user's statistics and term counts from `memories` (after a bulk copy). */
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

export const postgresMemorySearch: MemorySearch = {
  async index(trx, memory, previous) {
    const next = distinctTokens(memory.searchTerms);
    const before = new Set(previous ? distinctTokens(previous.searchTerms) : []);
    const after = new Set(next);
    await changeTerms(
      trx,
      memory.userId,
      next.filter((term) => !before.has(term)),
      [...before].filter((term) => !after.has(term)),
    );
    await addSearchStats(trx, memory.userId, previous ? 0 : 1, memory.tokenCount - (previous?.tokenCount ?? 0));
  },

  async unindex(trx, memory) {
    await changeTerms(trx, memory.userId, [], distinctTokens(memory.searchTerms));
    await addSearchStats(trx, memory.userId, -1, -memory.tokenCount);
  },

  sameOwner: (eb, userId) => eb('memories.user_id', '=', userId),

  descendantOf: (_eb, project) => descendantOf('memories.project_name', project),

  async keywordCandidates(db, userId, query, filter) {
    if (distinct(query.terms).length === 0) return [];
    return (
      matches(db, userId, query, filter)
        .select([
          'memories.seq',
          'memories.project_name',
          'memories.priority',
          'memories.recency_ms',
          'memories.pinned',
          'memories.search_terms',
          'memories.token_count',
        ])
        // Newest first, as `-seq`: only the (user_id, -seq) index gives that order (migration 0018), so a
        // frequent word walks the user's own memories instead of the primary key past everyone else's.
        .orderBy(sql`-memories.seq`)
        .limit(query.limit)
        .execute()
    );
  },

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
