import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/domain/memories/analyzer.js';
import type { KeywordQuery } from '../../src/domain/memories/memory-store.js';
import type { Database } from '../../src/storage/database.js';
import type { MemorySearch } from '../../src/storage/dialects/sql-dialect.js';
import { filterCondition } from '../../src/storage/memory-store.js';
import type { Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { DIALECTS } from '../helpers/databases.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

/**
 * Keyword candidates and totals through each dialect's short paths, against the plain answer:
 * - a one-word total with nothing else to narrow it comes from the user's document count for the word
 *   (SQLite: fts5vocab; PostgreSQL: memory_terms) less the hidden memories that hold it; on PostgreSQL a
 *   total of several words is the most frequent word's count so, plus the matches of the others that lack it;
 * - candidates are the newest matches (PostgreSQL orders them `-seq` so that its (user_id, -seq) index can
 *   walk a frequent word: migration 0018).
 * The plain answer is every match, read with a limit above the corpus, newest first.
 */
const AT = '2026-01-01T00:00:00.000Z';
const NOW = '2026-06-01T00:00:00.000Z';
const PAST = '2026-03-01T00:00:00.000Z';
const FUTURE = '2026-09-01T00:00:00.000Z';
const WORDS = ['alpha', 'bravo', 'charlie', 'delta'];
// Searched for but never written: a term outside the user's vocabulary.
const ABSENT = 'echo';

const memoryArb = fc.record({
  words: fc.subarray(WORDS, { minLength: 1 }),
  owner: fc.constantFrom('usr_a', 'usr_a', 'usr_b'),
  expires: fc.constantFrom(null, null, PAST, FUTURE),
  pinned: fc.boolean(),
  project: fc.constantFrom(null, 'p', 'q'),
});

describe.each(DIALECTS)('keyword candidates and totals (%s)', (name) => {
  let opened: TestStores;
  let database: Database;
  let stores: Stores;
  let search: MemorySearch;

  beforeAll(async () => {
    opened = await openTestStores(name, ['usr_a', 'usr_b']);
    ({ database, stores } = opened);
    search = database.dialect.memorySearch(database.db);
  });
  afterAll(async () => {
    await opened?.close();
  });

  let next = 0;
  async function load(memories: Array<typeof memoryArb extends fc.Arbitrary<infer M> ? M : never>) {
    // Deleted through the store, so that the search statistics and term counts follow.
    for (const owner of ['usr_a', 'usr_b']) {
      const { rows } = await sql<{ id: string }>`select id from memories where user_id = ${owner}`.execute(database.db);
      for (const row of rows) await stores.memories.delete(owner, row.id, TEST_CHANGE);
    }
    for (const m of memories) {
      await stores.memories.insert(
        {
          id: `mem_${next++}`,
          userId: m.owner,
          text: m.words.join(' '),
          projectName: m.project,
          metadata: {},
          createdAt: AT,
          updatedAt: AT,
          lastAccessedAt: null,
          expiresAt: m.expires,
          pinned: m.pinned,
        },
        TEST_CHANGE,
        {},
      );
    }
  }

  it('gives the totals and the newest candidates the plain way gives them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(memoryArb, { minLength: 1, maxLength: 30 }),
        fc.subarray([...WORDS, ABSENT], { minLength: 1, maxLength: 3 }),
        fc.constantFrom<'visible' | 'all'>('visible', 'all'),
        fc.integer({ min: 1, max: 8 }),
        async (memories, terms, visibility, limit) => {
          await load(memories);
          const query: KeywordQuery = {
            // As the domain hands them over: analysed.
            terms: terms.flatMap((word) => analyze(word)),
            tags: [],
            limit: 10_000,
            ...(visibility === 'visible' && { visibleAt: NOW }),
          };
          const filter = filterCondition('usr_a', query);
          const every = await search.keywordCandidates(database.db, 'usr_a', query, filter);
          const seqs = every.map((row) => Number(row.seq));
          // Newest first, each match once.
          expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
          expect(new Set(seqs).size).toBe(seqs.length);
          expect(await search.countKeywordMatches(database.db, 'usr_a', query, filter)).toBe(seqs.length);
          const newest = await search.keywordCandidates(database.db, 'usr_a', { ...query, limit }, filter);
          expect(newest.map((row) => Number(row.seq))).toEqual(seqs.slice(0, limit));
        },
      ),
      { numRuns: name === 'sqlite' ? 40 : 25 },
    );
  });
});
