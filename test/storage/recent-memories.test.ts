import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/domain/memories/analyzer.js';
import type { MemoryRecord, MemoryStore, NearDuplicateQuery } from '../../src/domain/memories/memory-store.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createSqliteMemorySearch } from '../../src/storage/dialects/sqlite/memory-search.js';
import { createRecentMemories } from '../../src/storage/dialects/sqlite/recent-memories.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import { createStores, type Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { statementsDuring } from '../helpers/sqlite-statements.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

/**
 * The near-duplicate check's candidates kept in memory (SQLite, storage/dialects/sqlite/recent-memories.ts)
 * against FTS5's answer for the same question, after every kind of change: creates one at a time and in
 * batches (which move the windows along), updates of text and project, deletes, supersede links, expiry
 * and pins (which hide and show memories), and writes by a second connection to the same file (another
 * instance: only the stamp tells). Windows are tiny here (2 memories read at first, at most 6 held) so
 * that growing, trimming, giving up and backing off all happen within a few memories.
 */
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
const PROJECTS = [null, 'p', 'p/q', 'r'];
const USERS = ['usr_a', 'usr_b'];

const memoryArb = fc.record({
  words: fc.subarray(WORDS, { minLength: 1, maxLength: 4 }),
  project: fc.constantFrom(...PROJECTS),
  // Expiry relative to the time of the check: some are hidden, some not yet.
  expires: fc.constantFrom(null, null, null, -5, 5),
  pinned: fc.boolean(),
});

const operationArb = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('create' as const), memory: memoryArb }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('batch' as const), memories: fc.array(memoryArb, { maxLength: 4 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('other' as const), memory: memoryArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      pick: fc.nat(),
      words: fc.option(fc.subarray(WORDS, { minLength: 1, maxLength: 3 }), { nil: undefined }),
      project: fc.option(fc.constantFrom(...PROJECTS), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('supersede' as const), pick: fc.nat(), memory: memoryArb }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('check' as const),
      words: fc.subarray([...WORDS, 'golf'], { minLength: 1, maxLength: 3 }),
      project: fc.constantFrom(...PROJECTS),
      limit: fc.integer({ min: 1, max: 5 }),
    }),
  },
);

describe('near-duplicate candidates from memory (SQLite)', () => {
  let opened: TestStores;
  let other: Database;
  let otherStores: Stores;
  let store: MemoryStore;

  /**
   * A memory store whose windows are tiny, with nothing remembered yet; `maxBytes` lets about 8 memories
   * be held in all (so windows are evicted as others are read) or, at the default, all of them.
   */
  const tinyWindows = (maxBytes = 1_000_000) =>
    createMemoryStore(opened.database.db, {
      ...opened.database.dialect,
      memorySearch: (db) => createSqliteMemorySearch(db, { firstRead: 2, maxEntries: 6, trimStep: 2, maxBytes }),
    });

  beforeAll(async () => {
    opened = await openTestStores('sqlite', USERS);
    store = tinyWindows(8 * 1_020);
    other = await openDatabase(opened.testDb.url);
    otherStores = createStores(other);
  });
  afterAll(async () => {
    await other?.close();
    await opened?.close();
  });

  let next = 0;
  type Generated = { words: string[]; project: string | null; expires: number | null; pinned: boolean };
  const record = (userId: string, m: Generated, now: number): MemoryRecord => ({
    id: `mem_${next++}`,
    userId,
    text: m.words.join(' '),
    projectName: m.project,
    metadata: {},
    createdAt: at(now),
    updatedAt: at(now),
    lastAccessedAt: null,
    expiresAt: m.expires === null ? null : at(now + m.expires),
    pinned: m.pinned,
  });

  it('answers every check as FTS5 does, whatever changed before it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...USERS),
        fc.array(operationArb, { minLength: 1, maxLength: 40 }),
        async (userId, operations) => {
          const ids = async (owner = userId) =>
            (
              await sql<{ id: string }>`select id from memories where user_id = ${owner} order by seq`.execute(
                opened.database.db,
              )
            ).rows.map((row) => row.id);
          // Through the store, so that the full-text index follows.
          for (const owner of USERS) for (const id of await ids(owner)) await store.delete(owner, id, TEST_CHANGE);
          let now = 0;
          for (const op of operations) {
            now += 1;
            if (op.kind === 'create') await store.insert(record(userId, op.memory, now), TEST_CHANGE, {});
            if (op.kind === 'batch' && op.memories.length > 0) {
              await store.insertMany(
                op.memories.map((m) => record(userId, m, now)),
                TEST_CHANGE,
              );
            }
            if (op.kind === 'other') await otherStores.memories.insert(record(userId, op.memory, now), TEST_CHANGE, {});
            const existing = op.kind === 'update' || op.kind === 'delete' || op.kind === 'supersede' ? await ids() : [];
            const picked = 'pick' in op ? existing[op.pick % Math.max(1, existing.length)] : undefined;
            if (op.kind === 'update' && picked !== undefined) {
              await store.update(
                userId,
                picked,
                {
                  ...(op.words && { text: op.words.join(' ') }),
                  ...(op.project !== undefined && { projectName: op.project }),
                },
                at(now),
                TEST_CHANGE,
              );
            }
            if (op.kind === 'delete' && picked !== undefined) await store.delete(userId, picked, TEST_CHANGE);
            if (op.kind === 'supersede' && picked !== undefined) {
              await store.insert(record(userId, op.memory, now), TEST_CHANGE, { supersedes: [picked] });
            }
            if (op.kind === 'check') {
              const query: NearDuplicateQuery = {
                terms: op.words.flatMap((word) => analyze(word)),
                project: op.project,
                visibleAt: at(now),
                limit: op.limit,
              };
              const got = await store.nearDuplicateCandidates(userId, query);
              const expected = await store.keywordCandidates(userId, {
                terms: [...query.terms],
                tags: [],
                visibleAt: query.visibleAt,
                ...(op.project !== null && { scope: { project: op.project, ancestors: [] }, only: 'project' as const }),
                limit: op.limit,
              });
              expect(got.map((c) => [c.seq, c.projectName, c.searchTerms])).toEqual(
                expected.map((c) => [c.seq, c.projectName, c.searchTerms]),
              );
              const withIds = got.filter((c) => c.id !== undefined);
              if (withIds.length > 0) {
                const found = await store.idsBySeq(
                  userId,
                  withIds.map((c) => c.seq),
                );
                expect(new Map(found.map((r) => [r.seq, r.id]))).toEqual(new Map(withIds.map((c) => [c.seq, c.id])));
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps its windows current through this process creates, and reads again after another connection writes', async () => {
    for (const owner of USERS) {
      const { rows } = await sql<{ id: string }>`select id from memories where user_id = ${owner}`.execute(
        opened.database.db,
      );
      for (const row of rows) await store.delete(owner, row.id, TEST_CHANGE);
    }
    store = tinyWindows();
    const memory = (words: string[], project: string | null) => ({ words, project, expires: null, pinned: false });
    const check = (project: string | null) =>
      store.nearDuplicateCandidates('usr_a', { terms: ['alpha'], project, visibleAt: at(100), limit: 2 });
    const kinds = (statements: string[]) => ({
      fullText: statements.filter((s) => s.includes('MATCH')).length,
      windowReads: statements.filter((s) => s.includes('from "memories"') && s.includes('"stamp"')).length,
    });

    for (let i = 0; i < 3; i++) await store.insert(record('usr_a', memory(['alpha'], 'p'), i), TEST_CHANGE, {});
    // The first check of each project reads its window; `r` holds nothing: complete and empty.
    expect((await check('p')).map((c) => c.searchTerms)).toEqual([' alpha ', ' alpha ']);
    expect((await check('r')).length).toBe(0);

    // Creates in both projects and elsewhere move the windows along inside their transactions.
    let seqs: number[] = [];
    const during = await statementsDuring(async () => {
      await store.insert(record('usr_a', memory(['alpha', 'bravo'], 'p'), 10), TEST_CHANGE, {});
      await store.insert(record('usr_a', memory(['alpha'], 'r'), 11), TEST_CHANGE, {});
      await store.insert(record('usr_a', memory(['charlie'], 'q'), 12), TEST_CHANGE, {});
      await store.insertMany([record('usr_a', memory(['alpha', 'delta'], 'p'), 13)], TEST_CHANGE);
      seqs = [...(await check('p')), ...(await check('r'))].map((c) => c.seq);
    });
    expect(kinds(during)).toEqual({ fullText: 0, windowReads: 0 });
    const newest = await sql<{ seq: number; project_name: string }>`
      select seq, project_name from memories where user_id = 'usr_a' order by seq desc`.execute(opened.database.db);
    const newestOf = (project: string) => newest.rows.filter((r) => r.project_name === project).map((r) => r.seq);
    expect(seqs).toEqual([...newestOf('p').slice(0, 2), ...newestOf('r').slice(0, 2)]);

    // Another connection's create: only the stamp tells; the window is read again and holds it.
    await otherStores.memories.insert(record('usr_a', memory(['alpha', 'echo'], 'p'), 20), TEST_CHANGE, {});
    let found: string[] = [];
    const after = await statementsDuring(async () => {
      found = (await check('p')).map((c) => c.searchTerms);
    });
    expect(found).toEqual([' alpha echo ', ' alpha delta ']);
    expect(kinds(after)).toEqual({ fullText: 0, windowReads: 1 });
  });

  it('stays within its memory bound, the least recently used windows going first', async () => {
    for (const owner of USERS) {
      const { rows } = await sql<{ id: string }>`select id from memories where user_id = ${owner}`.execute(
        opened.database.db,
      );
      for (const row of rows) await store.delete(owner, row.id, TEST_CHANGE);
    }
    const projects = ['p1', 'p2', 'p3'];
    for (const project of projects) {
      const batch = Array.from({ length: 10 }, (_, i) =>
        record('usr_a', { words: ['alpha'], project, expires: null, pinned: false }, i),
      );
      await store.insertMany(batch, TEST_CHANGE);
    }
    // Ten memories of ` alpha ` are about 10,140 bytes by the estimate: room for two windows.
    const recent = createRecentMemories(opened.database.db, {
      firstRead: 16,
      maxEntries: 16,
      trimStep: 4,
      maxBytes: 25_000,
    });
    const check = (project: string) =>
      recent.candidates(opened.database.db, 'usr_a', { terms: ['alpha'], project, visibleAt: at(100), limit: 3 });
    const windowReads = async (work: () => Promise<unknown>) =>
      (await statementsDuring(work)).filter((s) => s.includes('from "memories"') && s.includes('"stamp"')).length;

    expect(await windowReads(() => check('p1'))).toBe(1);
    expect(await windowReads(() => check('p2'))).toBe(1);
    expect(recent.size).toMatchObject({ windows: 2, entries: 20 });
    // p1 was used last but one: reading p3 drops it, and p2 stays.
    expect(await windowReads(() => check('p3'))).toBe(1);
    expect(recent.size.windows).toBe(2);
    expect(recent.size.bytes).toBeLessThanOrEqual(25_000);
    expect(await windowReads(() => check('p2'))).toBe(0);
    expect(await windowReads(() => check('p1'))).toBe(1);
    expect((await check('p1'))?.length).toBe(3);
  });

  it('leaves a window of long memories to FTS5 once its string searches pass their budget', async () => {
    // Deep enough to hold them all: only the budget sends the check to FTS5.
    store = createMemoryStore(opened.database.db, {
      ...opened.database.dialect,
      memorySearch: (db) =>
        createSqliteMemorySearch(db, { firstRead: 16, maxEntries: 64, trimStep: 4, maxBytes: 10_000_000 }),
    });
    // 9 memories of 5,000 distinct words (~34,000 characters): every Bloom bit set, so every word
    // searched passes the filter and costs a search of the whole text.
    const long = (n: number) => Array.from({ length: 5_000 }, (_, i) => `w${n}x${i}`);
    for (let n = 0; n < 9; n++) {
      await store.insert(
        record('usr_b', { words: long(n), project: 'big', expires: null, pinned: false }, n),
        TEST_CHANGE,
        {},
      );
    }
    const query: NearDuplicateQuery = { terms: ['absent', 'w3x7'], project: 'big', visibleAt: at(100), limit: 5 };
    let got: Array<{ seq: number }> = [];
    const statements = await statementsDuring(async () => {
      got = await store.nearDuplicateCandidates('usr_b', query);
    });
    expect(statements.filter((s) => s.includes('MATCH')).length).toBe(1);
    const expected = await store.keywordCandidates('usr_b', {
      terms: [...query.terms],
      tags: [],
      visibleAt: query.visibleAt,
      scope: { project: 'big', ancestors: [] },
      only: 'project',
      limit: 5,
    });
    expect(got.map((c) => c.seq)).toEqual(expected.map((c) => c.seq));
    expect(got.length).toBe(1);
  });
});
