import { type Kysely, sql } from 'kysely';
import { sha256Hex } from '../../../domain/common/digest.js';
import { ancestorsOf } from '../../../domain/common/project.js';
import type { KeywordQuery, VocabularyTerm } from '../../../domain/memories/memory-store.js';
import { precompiledInsert, precompileStatement } from '../../precompiled.js';
import type { Schema } from '../../schema.js';
import { filtersRows } from '../memory-scope.js';
import { readSearchStats, searchStatsWriter } from '../memory-stats.js';
import type { MemoryFilterApplier, MemorySearch } from '../sql-dialect.js';
import { ftsOwnerToken, ftsQuote } from './fts.js';
import { sqliteContextCandidates } from './memory-context.js';
import { descendantOf } from './paths.js';
import { createRecentMemories, type RecentLimits } from './recent-memories.js';

/** Project paths as single index tokens: letters and digits only, whatever the path contains. */
const projectToken = (prefix: 's' | 'a', project: string) => `${prefix}${sha256Hex(project).slice(0, 20)}`;
const GLOBAL_TOKEN = 'global';
/**
 * BM25 normalises by the length of the whole row, filter columns included. Padding the scope column to a
 * fixed number of tokens keeps project depth from changing keyword scores (up to 8 levels deep).
 */
const SCOPE_TOKENS = 8;
const PAD_TOKEN = 'pad';

/** The query's index terms (analysed by the domain), distinct and non-empty. */
const indexTerms = (terms: readonly string[]) => [...new Set(terms.filter(Boolean))];

/**
 * Each user's words are distinct index terms: a fixed-length per-user prefix (a hash of the user id, so
 * it is unambiguous whatever ids look like) before each analysed token. Document frequencies read from
 * the index (fts5vocab) are then the user's own: another user's memories never change a user's BM25
 * statistics, so scores reveal nothing about other users' content (docs/memory-search.md). Owner, scope
 * and priority tokens start with other letters, so they never collide with these.
 */
export const userTermPrefix = (userId: string): string => `w${sha256Hex(userId).slice(0, 16)}`;

/** ` tok tok ` (memories.search_terms) → `wPREFIXtok wPREFIXtok`. */
export function userTerms(userId: string, searchTerms: string): string {
  const prefix = userTermPrefix(userId);
  return searchTerms
    .split(' ')
    .filter(Boolean)
    .map((token) => prefix + token)
    .join(' ');
}

/**
 * FTS5 query: the scope or narrowing, then any of the terms in text, category or tags. The terms are the
 * user's own (userTermPrefix), so they scope the query to the user without the owner token, whose list
 * holds every memory of the user: walking it beside the terms' lists cost more than the rest of the query
 * (docs/memory-search.md, *Profile*). Callers still join `memories.user_id`.
 */
function ftsExpression(userId: string, query: Omit<KeywordQuery, 'limit'>, terms: readonly string[]): string {
  const prefix = userTermPrefix(userId);
  const parts: string[] = [];
  if (query.scope) {
    const { project, ancestors } = query.scope;
    // The project itself is one token; the whole scope an OR of the project, its descendants, its
    // ancestors and global.
    const scope =
      query.only === 'project'
        ? [projectToken('s', project)]
        : [
            projectToken('s', project),
            projectToken('a', project),
            ...ancestors.map((a) => projectToken('s', a)),
            GLOBAL_TOKEN,
          ];
    parts.push(`scope:(${scope.join(' OR ')})`);
  }
  if (query.only === 'high') parts.push('prio:high');
  parts.push(`{text category tags}:(${terms.map((term) => ftsQuote(prefix + term)).join(' OR ')})`);
  return parts.join(' AND ');
}

/** What ranking reads of a candidate: its term frequencies come from `search_terms`. */
const RANKING_COLUMNS = [
  'memories.seq',
  'memories.project_name',
  'memories.priority',
  'memories.recency_ms',
  'memories.pinned',
  'memories.token_count',
  'memories.search_terms',
] as const;

/**
 * The statements of unfilteredCandidates, compiled once (precompiled.ts): the match expression, ids and
 * limit are arguments, so the SQL text never changes.
 */
function unfilteredCandidateReads(db: Kysely<Schema>) {
  const newest = (match: string) =>
    db.selectFrom('memories_fts').select('rowid').where(sql<boolean>`memories_fts MATCH ${match}`);
  return {
    newest: precompileStatement(
      (match: string, limit: number) => newest(match).orderBy('rowid', 'desc').limit(limit),
      2,
    ),
    newestVisible: precompileStatement(
      (match: string, userId: string, at: string, limit: number) =>
        newest(match).where(notHidden(userId, at)).orderBy('rowid', 'desc').limit(limit),
      4,
    ),
    rows: precompileStatement(
      (seqs: string, userId: string) =>
        db
          .selectFrom('memories')
          .select(RANKING_COLUMNS)
          // One statement whatever the number of rows (a bound IN-list would be a new statement per length).
          .where(sql<boolean>`memories.seq in (select value from json_each(${seqs}))`)
          .where(sql<boolean>`+memories.user_id = ${userId}`),
      2,
    ),
  };
}

/**
 * Keyword candidates with nothing to narrow by but visibility (the MCP search's first stream, near
 * duplicates on create): the index alone decides them. Their rowids first (no row is read while FTS5
 * walks), then one read of the rows the caller does not hold yet (`known`: the extra streams mostly find
 * rows the first one already read), newest first as the join gave them.
 */
async function unfilteredCandidates(
  reads: ReturnType<typeof unfilteredCandidateReads>,
  db: Kysely<Schema>,
  userId: string,
  query: KeywordQuery,
  terms: string[],
) {
  const match = ftsExpression(userId, query, terms);
  const matches =
    query.visibleAt === undefined
      ? await reads.newest(db, match, query.limit)
      : await reads.newestVisible(db, match, userId, query.visibleAt, query.limit);
  const wanted = matches.map((match) => Number(match.rowid)).filter((seq) => !query.known?.has(seq));
  if (wanted.length === 0) return [];
  const rows = await reads.rows(db, JSON.stringify(wanted), userId);
  return rows.sort((a, b) => Number(b.seq) - Number(a.seq));
}

/**
 * The index walk leaves out the user's memories hidden at `at` (expired or superseded): their rowids are a
 * range of the (user_id, visible_until) index, read once per query, and a page is never emptied after the
 * fact (the walk goes on to the limit). Probing each match against that set costs ~60 ns, which doubled
 * counting a common word's 70,000 matches (docs/performance.md), so the probe is guarded: whether the user
 * has anything hidden at all is one uncorrelated subquery (evaluated once, a probe of the same index), and
 * for a user with nothing hidden each match costs only that cached answer.
 */
const notHidden = (userId: string, at: string) =>
  sql<boolean>`(not exists (select 1 from memories where user_id = ${userId} and visible_until <= ${at})
    or rowid not in (select seq from memories where user_id = ${userId} and visible_until <= ${at}))`;

/** How long document frequencies are reused. */
const STATS_TTL_MS = 60_000;
const MAX_CACHED_TERMS = 10_000;

interface Cached<T> {
  value: T;
  expires: number;
}

/**
 * Per-user search statistics. The document count and total length are one primary-key read of
 * `memory_search_stats` (kept exact in each write's transaction). Document frequencies are read from the
 * index for the user's own (prefixed) terms, which costs a walk of the term's list of the user's
 * documents, so they are cached per process for a minute (a stale entry is used while a fresh one is
 * read in the background). Cache keys are per user, so one user's searches never shape another's scores.
 */
function createStatsCache(db: Kysely<Schema>) {
  const frequencies = new Map<string, Cached<number>>();

  async function readFrequencies(terms: string[]) {
    const rows = await db.selectFrom('memories_fts_vocab').select(['term', 'doc']).where('term', 'in', terms).execute();
    const found = new Map(rows.map((row) => [row.term, Number(row.doc)]));
    const expires = Date.now() + STATS_TTL_MS;
    for (const term of terms) {
      frequencies.delete(term);
      frequencies.set(term, { value: found.get(term) ?? 0, expires });
    }
    while (frequencies.size > MAX_CACHED_TERMS) {
      const oldest = frequencies.keys().next().value;
      if (oldest === undefined) break;
      frequencies.delete(oldest);
    }
  }

  return {
    corpus: (userId: string) => readSearchStats(db, userId),
    /** `terms` are the user's prefixed terms. */
    async documentFrequencies(terms: string[]): Promise<number[]> {
      const missing = terms.filter((term) => !frequencies.has(term));
      if (missing.length > 0) await readFrequencies(missing);
      const stale = terms.filter((term) => (frequencies.get(term)?.expires ?? 0) < Date.now());
      if (stale.length > 0) void readFrequencies(stale).catch(() => undefined);
      return terms.map((term) => frequencies.get(term)?.value ?? 0);
    },
  };
}

/**
 * SQLite: FTS5 finds the matches (the user's own terms, scope and narrowing are index tokens, so other
 * users' rows are never visited) newest first and stops at the limit; BM25 is then computed here from the candidates'
 * term frequencies and cached corpus statistics. FTS5's own bm25() re-reads every phrase's whole
 * document list on each query, which costs milliseconds per common word; this costs microseconds.
 */
export function createSqliteMemorySearch(db: Kysely<Schema>, recentLimits?: RecentLimits): MemorySearch {
  const stats = createStatsCache(db);
  // Every memory write runs these: compiled once (precompiled.ts).
  const writes = {
    deleteEntry: precompileStatement((seq: number) => db.deleteFrom('memories_fts').where('rowid', '=', seq), 1),
    insertEntry: precompiledInsert(db, 'memories_fts', ['rowid', 'owner', 'scope', 'prio', 'text', 'category', 'tags']),
    addStats: searchStatsWriter(db),
  };
  const reads = unfilteredCandidateReads(db);
  const recent = createRecentMemories(db, recentLimits);

  function candidates(
    database: Kysely<Schema>,
    userId: string,
    query: Omit<KeywordQuery, 'limit' | 'only'> & { only?: KeywordQuery['only'] },
    terms: string[],
    filter: MemoryFilterApplier,
  ) {
    return database
      .selectFrom('memories_fts')
      .innerJoin('memories', 'memories.seq', 'memories_fts.rowid')
      .where(sql<boolean>`memories_fts MATCH ${ftsExpression(userId, query, terms)}`)
      .where('memories.user_id', '=', userId)
      .where(filter);
  }

  return {
    async index(trx, memory, previous) {
      await writes.deleteEntry(trx, memory.seq);
      const scope =
        memory.projectName === null
          ? [GLOBAL_TOKEN]
          : [
              projectToken('s', memory.projectName),
              ...ancestorsOf(memory.projectName)
                .reverse()
                .map((ancestor) => projectToken('a', ancestor)),
            ];
      await writes.insertEntry(trx, {
        rowid: memory.seq,
        owner: ftsOwnerToken(memory.userId),
        scope: [...scope, ...Array(Math.max(0, SCOPE_TOKENS - scope.length)).fill(PAD_TOKEN)].join(' '),
        prio: memory.priority ?? 'none',
        // Text, category and tags analysed together (memories.search_terms): matching and document
        // frequencies only ask whether a word occurs in any of them.
        text: userTerms(memory.userId, memory.searchTerms),
        category: '',
        tags: '',
      });
      await writes.addStats(
        trx,
        memory.userId,
        previous ? 0 : 1,
        memory.tokenCount - (previous ? previous.tokenCount : 0),
      );
    },

    async unindex(trx, memory) {
      await writes.deleteEntry(trx, memory.seq);
      await writes.addStats(trx, memory.userId, -1, -memory.tokenCount);
    },

    recentCandidates: (database, userId, query) => recent.candidates(database, userId, query),
    inserted: (trx, memory) => recent.inserted(trx, memory),

    // Unary plus stops SQLite from using the (user_id, …) indexes for this term.
    sameOwner: (_eb, userId) => sql<boolean>`+memories.user_id = ${userId}`,

    descendantOf: (_eb, project) => descendantOf('memories.project_name', project),

    // Walks the index newest first and stops at `limit`: no full scan however common the words are.
    async keywordCandidates(database, userId, query, filter) {
      const terms = indexTerms(query.terms);
      if (terms.length === 0) return [];
      const filtered = filtersRows(query);
      return filtered
        ? await candidates(database, userId, query, terms, filter)
            .select(RANKING_COLUMNS)
            .orderBy('memories_fts.rowid', 'desc')
            .limit(query.limit)
            .execute()
        : await unfilteredCandidates(reads, database, userId, query, terms);
    },

    async termStatistics(_database, userId, terms) {
      const prefix = userTermPrefix(userId);
      const [{ n, averageLength }, frequencies] = await Promise.all([
        stats.corpus(userId),
        terms.length === 0 ? [] : stats.documentFrequencies(terms.map((term) => prefix + term)),
      ]);
      return { documents: n, averageLength, frequencies };
    },

    contextCandidates: sqliteContextCandidates,

    async termsWithPrefix(database, userId, prefix, limit, scan) {
      if (prefix === '' || limit <= 0) return [];
      const from = userTermPrefix(userId) + prefix;
      // fts5vocab walks terms in order from `from` and counts each one's documents; `scan` bounds the walk.
      const rows = await database
        .selectFrom('memories_fts_vocab')
        .select(['term', 'doc'])
        .where('term', '>', from)
        .where('term', '<', `${from}\u{10FFFF}`)
        .limit(scan)
        .execute();
      const start = from.length - prefix.length;
      return rows
        .map((row): VocabularyTerm => ({ term: String(row.term).slice(start), documents: Number(row.doc) }))
        .sort((a, b) => b.documents - a.documents || (a.term < b.term ? -1 : 1))
        .slice(0, limit);
    },

    async countKeywordMatches(database, userId, query, filter) {
      const terms = indexTerms(query.terms);
      if (terms.length === 0) return 0;
      const filtered = filtersRows(query);
      // One word and nothing to narrow by: the answer is the word's document count among the user's memories.
      const [term] = terms;
      if (!filtered && !query.scope && terms.length === 1 && term !== undefined) {
        const all = await userDocumentCount(database, userId, term);
        return query.visibleAt === undefined
          ? all
          : all - (await hiddenWithTerm(database, userId, term, query.visibleAt));
      }
      // Without metadata filters the user's terms and the scope tokens say it all: count in the index
      // alone, which is several times faster than joining every match.
      const row = filtered
        ? await candidates(database, userId, query, terms, filter)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        : await database
            .selectFrom('memories_fts')
            .select((eb) => eb.fn.countAll().as('n'))
            .where(sql<boolean>`memories_fts MATCH ${ftsExpression(userId, query, terms)}`)
            .$if(query.visibleAt !== undefined, (qb) => qb.where(notHidden(userId, query.visibleAt ?? '')))
            .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

/**
 * How many of the user's memories hold `term`, read from the index now (exact; the cached document
 * frequencies may be a minute old). fts5vocab counts inside FTS5, several times faster than stepping
 * `count(*)` through every match (8–10 ms for a word in 73,000 memories, docs/memory-search.md).
 */
async function userDocumentCount(db: Kysely<Schema>, userId: string, term: string): Promise<number> {
  const row = await db
    .selectFrom('memories_fts_vocab')
    .select('doc')
    .where('term', '=', userTermPrefix(userId) + term)
    .executeTakeFirst();
  return Number(row?.doc ?? 0);
}

/** How many of the user's memories hidden at `at` hold `term` (the hidden ones only: a range of one index). */
async function hiddenWithTerm(db: Kysely<Schema>, userId: string, term: string, at: string): Promise<number> {
  const row = await db
    .selectFrom('memories')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .where('visible_until', '<=', at)
    .where(sql<boolean>`instr(search_terms, ${` ${term} `}) > 0`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
