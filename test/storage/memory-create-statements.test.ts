import fc from 'fast-check';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/domain/memories/analyzer.js';
import type { MemoryRecord } from '../../src/domain/memories/memory-store.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { DIALECTS } from '../helpers/databases.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

/**
 * A new memory's writes (row, tags, index entries, term counts, search statistics, audit row, webhook
 * deliveries): on PostgreSQL one statement of data-modifying CTEs (storage/one-statement-create.ts), and a
 * checked create's BEGIN and advisory lock one message; on SQLite the statements one by one. Whichever way
 * a memory arrives (a single create, a checked create, a batch), what the derived tables hold afterwards
 * must equal what a rebuild from `memories` gives, on both databases.
 */

/** Every statement PostgreSQL clients send while `counting` (wrapped before any connection exists). */
const sent: string[] = [];
let counting = false;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0] as string | { text?: string };
    sent.push(typeof first === 'string' ? first : (first.text ?? ''));
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

const AT = '2026-01-01T00:00:00.000Z';
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'];
const USERS = ['usr_a', 'usr_b'] as const;

let next = 0;
const memory = (userId: string, words: readonly string[], project: string | null, tags: string[]): MemoryRecord => ({
  id: `mem_${next++}`,
  userId,
  text: words.join(' '),
  projectName: project,
  metadata: { tags, priority: tags.length > 1 ? 'high' : 'medium' },
  createdAt: AT,
  updatedAt: AT,
  lastAccessedAt: null,
  expiresAt: null,
  pinned: false,
});

const contentArb = fc.record({
  owner: fc.constantFrom(...USERS),
  words: fc.subarray(WORDS, { minLength: 1 }),
  project: fc.constantFrom(null, 'p', 'p/a'),
  tags: fc.subarray(['t1', 't2', 'code review']),
});

const opArb = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), content: contentArb }),
  fc.record({ kind: fc.constant('checked' as const), content: contentArb, near: fc.boolean() }),
  fc.record({ kind: fc.constant('batch' as const), contents: fc.array(contentArb, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('update' as const), target: fc.nat(), words: fc.subarray(WORDS, { minLength: 1 }) }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }),
);

describe.each(DIALECTS)('a new memory’s writes (%s)', (dialect) => {
  let t: TestStores;
  beforeAll(async () => {
    t = await openTestStores(dialect, [...USERS]);
  });
  afterAll(async () => {
    await t?.close();
  });

  const rows = async <R>(query: ReturnType<typeof sql<R>>) => (await query.execute(t.database.db)).rows;

  /** The rows of two queries, compared as multisets (numbers as numbers: counts come back as strings). */
  async function sameRows(actual: string, expected: string) {
    const read = async (query: string) =>
      (await rows(sql<Record<string, unknown>>`${sql.raw(query)}`))
        .map((row) =>
          JSON.stringify(Object.values(row).map((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v))),
        )
        .sort();
    expect(await read(actual)).toEqual(await read(expected));
  }

  /** `created`: how many memories were created so far (each has its audit row), when the test knows. */
  async function expectDerivedTablesRebuilt(created?: number) {
    await sameRows(
      'select user_id, documents, tokens from memory_search_stats where documents <> 0',
      'select user_id, count(*), sum(token_count) from memories group by user_id',
    );
    // Each memory's tags, as its metadata names them (a tag may hold spaces).
    await sameRows(
      'select memory_id, tag from memory_tags',
      dialect === 'postgres'
        ? `select m.id, t.tag from memories m cross join lateral jsonb_array_elements_text(m.metadata->'tags') as t(tag)`
        : `select m.id, t.value from memories m, json_each(m.metadata, '$.tags') as t`,
    );
    if (created !== undefined) {
      const [audited] = await rows(
        sql<{
          n: number | string;
        }>`select count(*) as n from audit_events where object_type = 'memory' and action = 'created'`,
      );
      expect(Number(audited?.n)).toBe(created);
    }
    if (dialect !== 'postgres') return;
    const terms = `select m.user_id, t.term from memories m
      cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
      where t.term <> ''`;
    await sameRows(
      'select user_id, term, documents from memory_terms where documents > 0',
      `select user_id, term, count(*) from (${terms}) x group by user_id, term`,
    );
    await sameRows(
      'select user_id, term, seq, high, project_name from memory_postings',
      `select m.user_id, t.term, m.seq, coalesce(m.priority = 'high', false), m.project_name from memories m
        cross join lateral (select distinct unnest(string_to_array(btrim(m.search_terms), ' ')) as term) t
        where t.term <> ''`,
    );
  }

  it('leaves the derived tables as a rebuild would, however memories arrive', async () => {
    let created = 0;
    const live: MemoryRecord[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        for (const op of ops) {
          if (op.kind === 'insert' || op.kind === 'checked') {
            const c = op.content;
            const m = memory(c.owner, c.words, c.project, c.tags);
            if (op.kind === 'insert') await t.stores.memories.insert(m, TEST_CHANGE, {});
            else {
              const near = op.near
                ? { terms: c.words.slice(0, 3), project: c.project, visibleAt: AT, limit: 20 }
                : undefined;
              const { existing } = await t.stores.memories.insertChecked(m, TEST_CHANGE, {}, near);
              if (existing !== undefined) continue;
            }
            live.push(m);
            created++;
          } else if (op.kind === 'batch') {
            const batch = op.contents.map((c) => memory(c.owner, c.words, c.project, c.tags));
            await t.stores.memories.insertMany(batch, TEST_CHANGE);
            live.push(...batch);
            created += batch.length;
          } else {
            const target = live[op.target % Math.max(live.length, 1)];
            if (target === undefined) continue;
            if (op.kind === 'update') {
              await t.stores.memories.update(target.userId, target.id, { text: op.words.join(' ') }, AT, TEST_CHANGE);
            } else {
              await t.stores.memories.delete(target.userId, target.id, TEST_CHANGE);
              live.splice(live.indexOf(target), 1);
            }
          }
        }
        await expectDerivedTablesRebuilt(created);
      }),
      { numRuns: 25 },
    );
  });

  it('answers a checked create’s near duplicates with their ids', async () => {
    const first = memory('usr_a', ['golf', 'hotel', 'india', 'juliet'], 'near', []);
    await t.stores.memories.insert(first, TEST_CHANGE, {});
    const second = memory('usr_a', ['golf', 'hotel', 'india', 'kilo'], 'near', []);
    const near = { terms: ['golf', 'hotel'], project: 'near', visibleAt: AT, limit: 20 };
    const { candidates } = await t.stores.memories.insertChecked(second, TEST_CHANGE, {}, near);
    expect(candidates.map((c) => c.seq)).toHaveLength(1);
    // SQLite's window of recent memories keeps no ids (the check reads those it answers); PostgreSQL's
    // keyword stream carries them.
    if (dialect === 'postgres') expect(candidates[0]?.id).toBe(first.id);
  });

  /** The statements `run` sends (PostgreSQL). */
  async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
    sent.length = 0;
    counting = true;
    try {
      await run();
    } finally {
      counting = false;
    }
    return [...sent];
  }

  it.runIf(dialect === 'postgres')('sends a create as one statement, a checked create as three', async () => {
    const plain = memory('usr_b', ['kilo', 'lima'], 'count', ['t1']);
    const one = await statementsOf(() => t.stores.memories.insert(plain, TEST_CHANGE, {}));
    expect(one).toHaveLength(1);
    expect(one[0]).toMatch(/^with m as \(insert into "?memories"? /);

    const checked = memory('usr_b', ['kilo', 'mike'], 'count', []);
    const near = { terms: ['kilo'], project: 'count', visibleAt: AT, limit: 20 };
    let candidates: unknown[] = [];
    const three = await statementsOf(async () => {
      ({ candidates } = await t.stores.memories.insertChecked(checked, TEST_CHANGE, {}, near));
    });
    // BEGIN, the advisory lock and both checks in one message; the writes; COMMIT.
    expect(three).toHaveLength(3);
    expect(three[0]).toMatch(
      /^begin; select pg_advisory_xact_lock\(hashtextextended\('usr_b:[A-Za-z0-9_-]+', 0\)\); select /,
    );
    expect(three[2]).toBe('commit');
    expect(candidates).toEqual([expect.objectContaining({ id: plain.id, projectName: 'count' })]);
    expect(await t.stores.memories.findById('usr_b', checked.id)).toMatchObject({ text: 'kilo mike' });

    // The same text again: the first message finds it, nothing is written.
    const again = { ...memory('usr_b', ['kilo', 'mike'], 'count', []) };
    let existing: unknown;
    const found = await statementsOf(async () => {
      ({ existing } = await t.stores.memories.insertChecked(again, TEST_CHANGE, {}, near));
    });
    expect(existing).toMatchObject({ id: checked.id });
    expect(found.filter((text) => text.startsWith('with m as'))).toEqual([]);
    expect(await t.stores.memories.findById('usr_b', again.id)).toBeUndefined();
  });

  it.runIf(dialect === 'postgres')(
    'writes a batch in one statement per hundred memories or 1 Mi characters',
    async () => {
      const batch = Array.from({ length: 150 }, (_, i) =>
        memory('usr_a', [WORDS[i % WORDS.length] as string, `b${i}`], i % 2 ? 'batch' : null, i % 3 ? [] : ['t2']),
      );
      const statements = await statementsOf(() => t.stores.memories.insertMany(batch, TEST_CHANGE));
      expect(statements.filter((text) => /^with m as /.test(text))).toHaveLength(2);
      // BEGIN, the two, the audit rows, the webhook check, COMMIT.
      expect(statements).toHaveLength(6);
      const [count] = await rows(
        sql<{
          n: number | string;
        }>`select count(*) as n from memories where id in (${sql.join(batch.map((m) => m.id))})`,
      );
      expect(Number(count?.n)).toBe(150);
      // The seq of a batch's memories grows in the batch's order.
      const seqs = await rows(
        sql<{ id: string }>`select id from memories where id in (${sql.join(batch.map((m) => m.id))}) order by seq`,
      );
      expect(seqs.map((row) => row.id)).toEqual(batch.map((m) => m.id));
      await expectDerivedTablesRebuilt();
      // A statement takes at most 1 Mi characters of text before the next starts: 600 Ki + 600 Ki, then 600 Ki.
      const long = Array.from({ length: 3 }, (_, i) => ({
        ...memory('usr_a', [], 'long', []),
        text: `${'lorem ipsum dolor '.repeat(35_000)}${i}`.slice(0, 600 * 1024),
      }));
      const split = await statementsOf(() => t.stores.memories.insertMany(long, TEST_CHANGE));
      expect(split.filter((text) => /^with m as /.test(text))).toHaveLength(2);
      await expectDerivedTablesRebuilt();
    },
  );

  it.runIf(dialect === 'postgres')(
    'checks one statement at a time, with the same answers, when a value cannot be written as a literal',
    async () => {
      const stored = memory('usr_b', ["o'brien", 'november'], 'quotes', []);
      await t.stores.memories.insert(stored, TEST_CHANGE, {});
      // Analysed words are letters and digits; a quote (here as if it were one) cannot be a literal.
      const near = { terms: ["o'brien", ...analyze('november')], project: 'quotes', visibleAt: AT, limit: 20 };
      const checked = memory('usr_b', ["o'brien", 'oscar'], 'quotes', []);
      let candidates: unknown[] = [];
      const statements = await statementsOf(async () => {
        ({ candidates } = await t.stores.memories.insertChecked(checked, TEST_CHANGE, {}, near));
      });
      expect(statements[0]).toBe('begin');
      expect(statements[1]).toMatch(/^select pg_advisory_xact_lock\(hashtextextended\(\$1, 0\)\)$/);
      expect(statements.at(-1)).toBe('commit');
      expect(candidates).toEqual([expect.objectContaining({ id: stored.id })]);
      const again = memory('usr_b', ["o'brien", 'oscar'], 'quotes', []);
      expect((await t.stores.memories.insertChecked(again, TEST_CHANGE, {}, near)).existing).toMatchObject({
        id: checked.id,
      });
    },
  );

  it('rolls a failed checked create back and gives its connection back clean, more times than the pool holds', async () => {
    const [before] = await rows(sql<{ n: number | string }>`select count(*) as n from memories`);
    for (let i = 0; i < 14; i++) {
      const m = memory('usr_a', ['november', `n${i}`], 'fail', []);
      await expect(
        t.stores.memories.insertChecked(m, TEST_CHANGE, { supersedes: ['mem_missing'] }, undefined),
      ).rejects.toThrow(/mem_missing/);
    }
    const [after] = await rows(sql<{ n: number | string }>`select count(*) as n from memories`);
    expect(Number(after?.n)).toBe(Number(before?.n));
    if (dialect === 'postgres') {
      const open = await rows(sql<{ n: number | string }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and state like 'idle in transaction%'`);
      expect(Number(open[0]?.n)).toBe(0);
    }
    const ok = memory('usr_a', ['oscar'], 'fail', []);
    expect((await t.stores.memories.insertChecked(ok, TEST_CHANGE, {}, undefined)).existing).toBeUndefined();
    expect(await t.stores.memories.findById('usr_a', ok.id)).toMatchObject({ text: 'oscar' });
  });

  it('runs concurrent creates, batches and updates of one user without a deadlock', async () => {
    const base = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const m = memory('usr_b', [WORDS[i % WORDS.length] as string, 'papa'], 'busy', []);
        await t.stores.memories.insert(m, TEST_CHANGE, {});
        return m;
      }),
    );
    const results = await Promise.allSettled([
      ...Array.from({ length: 12 }, (_, i) =>
        t.stores.memories.insertChecked(
          memory('usr_b', [...WORDS.slice(i % 4, (i % 4) + 3), `q${i}`], 'busy', ['t1']),
          TEST_CHANGE,
          {},
          { terms: ['papa', 'alpha'], project: 'busy', visibleAt: AT, limit: 20 },
        ),
      ),
      ...Array.from({ length: 4 }, (_, i) =>
        t.stores.memories.insertMany(
          [memory('usr_b', [...WORDS].reverse().slice(i, i + 4), 'busy', []), memory('usr_b', ['papa'], 'busy', [])],
          TEST_CHANGE,
        ),
      ),
      ...base.map((m, i) =>
        t.stores.memories.update('usr_b', m.id, { text: WORDS.slice(i % 3, (i % 3) + 4).join(' ') }, AT, TEST_CHANGE),
      ),
    ]);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const [busy] = await rows(
      sql<{ n: number | string }>`select count(*) as n from memories where project_name = 'busy'`,
    );
    // 6 first, 12 checked creates of distinct texts, 4 batches of 2 (the batch's `papa` repeats: no check).
    expect(Number(busy?.n)).toBe(6 + 12 + 8);
    await expectDerivedTablesRebuilt();
  });
});
