import fc from 'fast-check';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ancestorsOf } from '../../src/domain/common/project.js';
import { analyze } from '../../src/domain/memories/analyzer.js';
import type { KeywordQuery } from '../../src/domain/memories/memory-store.js';
import type { Database } from '../../src/storage/database.js';
import { descendantOf } from '../../src/storage/dialects/postgres/paths.js';
import type { MemoryFilterApplier, MemorySearch } from '../../src/storage/dialects/sql-dialect.js';
import { filterCondition } from '../../src/storage/memory-store.js';
import type { Schema } from '../../src/storage/schema.js';
import type { Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { DIALECTS } from '../helpers/databases.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

/**
 * PostgreSQL's keyword candidate streams read `memory_postings` (migration 0020), kept in each write's
 * transaction. Against the plain query they replace (the GIN index over `search_tokens`, newest first),
 * after random creates, updates of text, project, priority, expiry and pin, supersede links and deletes:
 * the same rows in the same order for every stream (all, high-priority, in-project), scope, filter and
 * visibility; and the table holds exactly one row per distinct term of each memory, with its priority and
 * project.
 */
const AT = '2026-01-01T00:00:00.000Z';
const NOW = '2026-06-01T00:00:00.000Z';
const PAST = '2026-03-01T00:00:00.000Z';
const FUTURE = '2026-09-01T00:00:00.000Z';
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'testing', 'tests'];
const PROJECTS = [null, 'p', 'p/a', 'p/a/b', 'p0', 'q'];
const SCOPES = ['p', 'p/a', 'q', 'zz'];
const PRIORITIES = ['high', 'medium', 'low', undefined] as const;

const contentArb = fc.record({
  words: fc.subarray(WORDS, { minLength: 1 }),
  project: fc.constantFrom(...PROJECTS),
  priority: fc.constantFrom(...PRIORITIES),
  tag: fc.constantFrom('t1', 't2'),
});

const opArb = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      owner: fc.constantFrom('usr_a', 'usr_a', 'usr_b'),
      content: contentArb,
      expires: fc.constantFrom(null, null, PAST, FUTURE),
      pinned: fc.boolean(),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      target: fc.nat(),
      content: contentArb,
      part: fc.constantFrom('text', 'project', 'metadata', 'all'),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('lifecycle' as const),
      target: fc.nat(),
      expires: fc.constantFrom(null, PAST, FUTURE),
      pinned: fc.boolean(),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('supersede' as const), target: fc.nat(), by: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }), weight: 1 },
);

const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, arb);
const queryArb = fc.record({
  words: fc.subarray([...WORDS, 'echo'], { minLength: 1, maxLength: 3 }),
  scope: sometimes(fc.constantFrom(...SCOPES)),
  only: sometimes(fc.constantFrom('high' as const, 'project' as const)),
  priority: sometimes(fc.constantFrom('high', 'low')),
  tag: sometimes(fc.constantFrom('t1', 't2')),
  pinned: sometimes(fc.boolean()),
  visibility: fc.constantFrom('visible', 'visible', 'hidden', 'all'),
  limit: fc.integer({ min: 1, max: 12 }),
});

const lexeme = (term: string) => `'${term}'`;

/** The plain form: the GIN index over the analysed words, newest first. */
async function plainCandidates(db: Kysely<Schema>, userId: string, query: KeywordQuery, filter: MemoryFilterApplier) {
  const scope = query.scope;
  const rows = await db
    .selectFrom('memories')
    .select([
      'memories.seq',
      'memories.project_name',
      'memories.priority',
      'memories.search_terms',
      'memories.token_count',
      'memories.pinned',
      'memories.recency_ms',
    ])
    .where('memories.user_id', '=', userId)
    .where(sql<boolean>`search_tokens @@ ${[...new Set(query.terms)].map(lexeme).join(' | ')}::tsquery`)
    .$if(scope !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('memories.project_name', 'in', [scope?.project ?? '', ...(scope?.ancestors ?? [])]),
          eb('memories.project_name', 'is', null),
          descendantOf('memories.project_name', scope?.project ?? ''),
        ]),
      ),
    )
    .$if(query.only === 'high', (qb) => qb.where('memories.priority', '=', 'high'))
    .$if(query.only === 'project' && scope !== undefined, (qb) =>
      qb.where('memories.project_name', '=', scope?.project ?? ''),
    )
    .where(filter)
    .orderBy('memories.seq', 'desc')
    .limit(query.limit)
    .execute();
  return rows;
}

// PostgreSQL only (SQLite keeps no posting list). An empty `.each` would define no suite at all, which vitest
// reports as a failed file: without TEST_DATABASE_URL the suite is defined and skipped instead.
const name = 'postgres';

describe.skipIf(!DIALECTS.includes(name))('memory postings (postgres)', () => {
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
  const metadata = (c: { priority: string | undefined; tag: string }) => ({
    ...(c.priority && { priority: c.priority }),
    tags: [c.tag],
  });

  async function apply(ops: Array<typeof opArb extends fc.Arbitrary<infer O> ? O : never>) {
    for (const owner of ['usr_a', 'usr_b']) {
      const { rows } = await sql<{ id: string }>`select id from memories where user_id = ${owner}`.execute(database.db);
      for (const row of rows) await stores.memories.delete(owner, row.id, TEST_CHANGE);
    }
    const live: Array<{ id: string; owner: string }> = [];
    const pick = (n: number) => live[n % live.length];
    for (const op of ops) {
      if (op.kind === 'create') {
        const id = `mem_${next++}`;
        await stores.memories.insert(
          {
            id,
            userId: op.owner,
            text: op.content.words.join(' '),
            projectName: op.content.project,
            metadata: metadata(op.content),
            createdAt: AT,
            updatedAt: AT,
            lastAccessedAt: null,
            expiresAt: op.expires,
            pinned: op.pinned,
          },
          TEST_CHANGE,
          {},
        );
        live.push({ id, owner: op.owner });
        continue;
      }
      const target = pick(op.target);
      if (target === undefined) continue;
      if (op.kind === 'update') {
        const c = op.content;
        await stores.memories.update(
          target.owner,
          target.id,
          {
            ...((op.part === 'text' || op.part === 'all') && { text: c.words.join(' ') }),
            ...((op.part === 'project' || op.part === 'all') && { projectName: c.project }),
            ...((op.part === 'metadata' || op.part === 'all') && { metadata: metadata(c) }),
          },
          AT,
          TEST_CHANGE,
        );
      } else if (op.kind === 'lifecycle') {
        await stores.memories.update(
          target.owner,
          target.id,
          { expiresAt: op.expires, pinned: op.pinned },
          AT,
          TEST_CHANGE,
        );
      } else if (op.kind === 'supersede') {
        const by = pick(op.by);
        if (by !== undefined && by.owner === target.owner && by.id !== target.id) {
          await stores.memories.setSupersededBy(target.owner, target.id, by.id);
        }
      } else {
        await stores.memories.delete(target.owner, target.id, TEST_CHANGE);
        live.splice(live.indexOf(target), 1);
      }
    }
  }

  it('gives every stream the rows the plain query gives, and keeps one posting per term', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.array(queryArb, { minLength: 1, maxLength: 8 }),
        async (ops, queries) => {
          await apply(ops);
          const { rows: postings } = await sql<{ n: string }>`
            select count(*) as n from (
              (select user_id, term, seq, high, project_name from memory_postings
               except all
               select m.user_id, t.term, m.seq, coalesce(m.priority = 'high', false), m.project_name from memories m
               cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
               where t.term <> '')
              union all
              (select m.user_id, t.term, m.seq, coalesce(m.priority = 'high', false), m.project_name from memories m
               cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
               where t.term <> ''
               except all
               select user_id, term, seq, high, project_name from memory_postings)) d`.execute(database.db);
          expect(Number(postings[0]?.n)).toBe(0);
          for (const q of queries) {
            const query = {
              terms: [...new Set(q.words.flatMap((word) => analyze(word)))],
              tags: q.tag ? [q.tag] : [],
              limit: q.limit,
              ...(q.scope !== undefined && { scope: { project: q.scope, ancestors: ancestorsOf(q.scope) } }),
              ...(q.only !== undefined && { only: q.only }),
              ...(q.priority !== undefined && { priority: q.priority }),
              ...(q.pinned !== undefined && { pinned: q.pinned }),
              ...(q.visibility === 'visible' && { visibleAt: NOW }),
              ...(q.visibility === 'hidden' && { hiddenAt: NOW }),
            } as KeywordQuery;
            const filter = filterCondition('usr_a', query);
            const got = await search.keywordCandidates(database.db, 'usr_a', query, filter);
            const want = await plainCandidates(database.db, 'usr_a', query, filter);
            const shape = (rows: Array<Record<string, unknown>>) =>
              rows.map((row) => ({
                seq: Number(row.seq),
                project: row.project_name,
                priority: row.priority,
                terms: row.search_terms,
                tokens: Number(row.token_count),
                pinned: row.pinned,
                recency: Number(row.recency_ms),
              }));
            expect(shape(got as never)).toEqual(shape(want as never));
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
