import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ancestorsOf } from '../../src/domain/common/project.js';
import type { ContextQuery } from '../../src/domain/memories/memory-store.js';
import type { Database } from '../../src/storage/database.js';
import { contextCandidatesByUnion } from '../../src/storage/dialects/memory-context.js';
import {
  MAX_DESCENDANT_PROJECTS as POSTGRES_MAX_DESCENDANTS,
  descendantProjects as postgresDescendantProjects,
} from '../../src/storage/dialects/postgres/memory-context.js';
import { descendantOf as postgresDescendantOf } from '../../src/storage/dialects/postgres/paths.js';
import type { MemorySearch } from '../../src/storage/dialects/sql-dialect.js';
import {
  MAX_DESCENDANT_PROJECTS as SQLITE_MAX_DESCENDANTS,
  descendantProjects as sqliteDescendantProjects,
} from '../../src/storage/dialects/sqlite/memory-context.js';
import { descendantOf as sqliteDescendantOf } from '../../src/storage/dialects/sqlite/paths.js';
import { filterCondition } from '../../src/storage/memory-store.js';
import type { Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { DIALECTS } from '../helpers/databases.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

/**
 * The automatic context's candidate query of each dialect against the plain form it replaces: one UNION
 * ALL of a subquery per project group and priority rank, the descendants as one index range
 * (contextCandidatesByUnion). Both dialects read each descendant project by equality (found by a loose
 * index scan) and cut the descendants together with a window; the rows must be the very same, ties,
 * filters, hidden memories and awkward project names included.
 */
const AT = '2026-01-01T00:00:00.000Z';
const NOW = '2026-06-01T00:00:00.000Z';
const PAST = '2026-03-01T00:00:00.000Z';
const FUTURE = '2026-09-01T00:00:00.000Z';

// Names that sort next to each other byte-wise, in and out of `p`'s subtree ('0' is '/' + 1).
const PROJECTS = [null, 'p', 'p/a', 'p/a/b', 'p/a/b/c', 'p/b', 'p/a0', 'p/é', 'p/ ', 'p0', 'p.x', 'P/a', 'q', 'q/p'];
const SCOPES = ['p', 'p/a', 'p/a/b', 'q', 'P', 'p/é', 'zz'];
const CATEGORIES = ['coding_standards', 'project_specs'];

const memoryArb = fc.record({
  project: fc.constantFrom(...PROJECTS),
  priority: fc.constantFrom('high', 'medium', 'low', undefined),
  category: fc.constantFrom(...CATEGORIES),
  tag: fc.constantFrom('t1', 't2'),
  pinned: fc.boolean(),
  expires: fc.constantFrom(null, PAST, FUTURE),
  // Few distinct values, so recency ties are common and the cut must break them by seq.
  recency: fc.integer({ min: 0, max: 4 }),
  owner: fc.constantFrom('usr_a', 'usr_a', 'usr_a', 'usr_b'),
});

type MemoryCase = typeof memoryArb extends fc.Arbitrary<infer M> ? M : never;

// Filters now and then: each halves the rows, and a query should usually find some to cut.
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, arb);
const queryArb = fc.record({
  project: fc.oneof({ arbitrary: fc.constantFrom(...SCOPES), weight: 6 }, fc.constant(undefined)),
  limit: fc.integer({ min: 1, max: 6 }),
  priority: sometimes(fc.constantFrom('high', 'medium', 'low')),
  category: sometimes(fc.constantFrom(...CATEGORIES)),
  tag: sometimes(fc.constantFrom('t1', 't2')),
  pinned: sometimes(fc.boolean()),
  visibility: fc.constantFrom('visible', 'visible', 'visible', 'hidden', 'all'),
});

describe.each(DIALECTS)('memory context candidates (%s)', (name) => {
  let opened: TestStores;
  let database: Database;
  let stores: Stores;
  let search: MemorySearch;
  const descendantOf = (project: string) =>
    (name === 'sqlite' ? sqliteDescendantOf : postgresDescendantOf)('memories.project_name', project);
  const descendantProjects = name === 'sqlite' ? sqliteDescendantProjects : postgresDescendantProjects;
  const MAX_DESCENDANT_PROJECTS = name === 'sqlite' ? SQLITE_MAX_DESCENDANTS : POSTGRES_MAX_DESCENDANTS;

  beforeAll(async () => {
    opened = await openTestStores(name, ['usr_a', 'usr_b']);
    ({ database, stores } = opened);
    search = database.dialect.memorySearch(database.db);
  });
  afterAll(async () => {
    await opened?.close();
  });

  async function load(memories: MemoryCase[]) {
    await sql`delete from memory_tags`.execute(database.db);
    await sql`delete from memories`.execute(database.db);
    for (const [i, m] of memories.entries()) {
      await stores.memories.insert(
        {
          id: `mem_${i}`,
          userId: m.owner,
          text: `memory ${i}`,
          projectName: m.project,
          metadata: { ...(m.priority && { priority: m.priority }), category: m.category, tags: [m.tag] },
          createdAt: AT,
          updatedAt: AT,
          lastAccessedAt: null,
          expiresAt: m.expires,
          pinned: m.pinned,
        },
        TEST_CHANGE,
        {},
      );
      await database.db.updateTable('memories').set({ recency_ms: m.recency }).where('id', '=', `mem_${i}`).execute();
    }
  }

  it('gives exactly the rows of the union of a subquery per group and rank', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(memoryArb, { minLength: 10, maxLength: 60 }),
        fc.array(queryArb, { minLength: 1, maxLength: 8 }),
        async (memories, queries) => {
          await load(memories);
          for (const q of queries) {
            const query: ContextQuery = {
              limit: q.limit,
              tags: q.tag ? [q.tag] : [],
              ...(q.project !== undefined && { scope: { project: q.project, ancestors: ancestorsOf(q.project) } }),
              ...(q.priority && { priority: q.priority }),
              ...(q.category && { category: q.category }),
              ...(q.pinned !== undefined && { pinned: q.pinned }),
              ...(q.visibility === 'visible' && { visibleAt: NOW }),
              ...(q.visibility === 'hidden' && { hiddenAt: NOW }),
            } as ContextQuery;
            const filter = filterCondition('usr_a', query);
            const seqs = (rows: Array<{ seq: unknown }>) => rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
            const got = seqs(await search.contextCandidates(database.db, 'usr_a', query, filter));
            const want = seqs(await contextCandidatesByUnion(database.db, 'usr_a', query, filter, descendantOf));
            expect(got).toEqual(want);
          }
        },
      ),
      { numRuns: name === 'sqlite' ? 60 : 25 },
    );
  });

  it('finds the distinct descendant projects by a loose index scan, or gives up past the bound', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(memoryArb, { maxLength: 40 }),
        fc.constantFrom(...SCOPES),
        fc.integer({ min: 0, max: 6 }),
        async (memories, scope, max) => {
          await load(memories);
          const names = [
            ...new Set(
              memories
                .filter((m) => m.owner === 'usr_a' && m.project !== null && m.project.startsWith(`${scope}/`))
                .map((m) => m.project as string),
            ),
          ].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
          const found = await descendantProjects(database.db, 'usr_a', scope, max);
          expect(found).toEqual(names.length > max ? undefined : names);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('takes a subtree of more projects than the bound by its range, with the same rows', async () => {
    const many = Array.from(
      { length: MAX_DESCENDANT_PROJECTS + 3 },
      (_, i): MemoryCase => ({
        project: `p/sub${i}`,
        priority: (['high', 'medium', 'low'] as const)[i % 3],
        category: 'coding_standards',
        tag: 't1',
        pinned: false,
        expires: null,
        recency: i % 4,
        owner: 'usr_a',
      }),
    );
    await load(many);
    expect(await descendantProjects(database.db, 'usr_a', 'p', MAX_DESCENDANT_PROJECTS)).toBeUndefined();
    const query: ContextQuery = { limit: 4, tags: [], scope: { project: 'p', ancestors: [] }, visibleAt: NOW };
    const filter = filterCondition('usr_a', query);
    const got = await search.contextCandidates(database.db, 'usr_a', query, filter);
    expect(got).toHaveLength(12);
    expect(got.map((row) => Number(row.seq)).sort()).toEqual(
      (await contextCandidatesByUnion(database.db, 'usr_a', query, filter, descendantOf))
        .map((row) => Number(row.seq))
        .sort(),
    );
  });
});
