import { sql } from 'kysely';
import { scopeCondition } from '../memory-scope.js';
import type { MemorySearch } from '../sql-dialect.js';
import { descendantOf } from './paths.js';

/**
 * PostgreSQL: a generated tsvector column with a GIN index picks the candidates, scoped by user in the
 * same query; ts_rank_cd scores them.
 */
/** `to_tsquery` input: the words OR-ed; words are letters and digits only, so nothing needs escaping. */
const tsQuery = (words: readonly string[]) => words.join(' | ');

export const postgresMemorySearch: MemorySearch = {
  // The tsvector is a generated column: nothing to keep in step.
  async index() {},
  async unindex() {},

  sameOwner: (eb, userId) => eb('memories.user_id', '=', userId),

  descendantOf: (_eb, project) => descendantOf('memories.project_name', project),

  async keywordCandidates(db, userId, query, filter) {
    const q = sql`to_tsquery('english', ${tsQuery(query.words)})`;
    return db
      .selectFrom('memories')
      .select([
        'memories.seq',
        'memories.project_name',
        'memories.priority',
        'memories.recency_ms',
        // Cover density with length normalisation (1 + log length) grows with term frequency like BM25
        // but has no IDF; only its ratio to the best candidate's counts (ranking.ts).
        sql<number>`ts_rank_cd(search_vector, ${q}, 1)`.as('bm25'),
      ])
      .where('memories.user_id', '=', userId)
      .where(sql<boolean>`search_vector @@ ${q}`)
      .where((eb) => scopeCondition(eb, query.scope, postgresMemorySearch))
      .$if(query.only === 'high', (qb) => qb.where('memories.priority', '=', 'high'))
      .$if(query.only === 'project' && query.scope !== undefined, (qb) =>
        qb.where('memories.project_name', '=', query.scope?.project ?? ''),
      )
      .where(filter)
      .orderBy('memories.seq', 'desc')
      .limit(query.limit)
      .execute();
  },

  async countKeywordMatches(db, userId, query, filter) {
    const q = sql`to_tsquery('english', ${tsQuery(query.words)})`;
    const row = await db
      .selectFrom('memories')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('memories.user_id', '=', userId)
      .where(sql<boolean>`search_vector @@ ${q}`)
      .where((eb) => scopeCondition(eb, query.scope, postgresMemorySearch))
      .where(filter)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
