import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

/**
 * The required orderings (api-decisions §6), each fixed with memories that differ in one factor only.
 * Every case uses a fresh user so that candidates never mix.
 */
describe.each(DIALECTS)('memory search ranking (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { clock });
  });
  afterAll(async () => t?.close());

  async function seed(memories: Array<Record<string, unknown>>) {
    const user = await t.user();
    const ids: string[] = [];
    for (const memory of memories) {
      const res = await t.request(user.key, { method: 'POST', url: '/api/v1/memories', payload: memory });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().memory_id);
    }
    return { user, ids };
  }

  const search = async (key: string, query: string) => {
    const res = await t.request(key, { method: 'GET', url: `/api/v1/memories?${query}` });
    expect(res.statusCode).toBe(200);
    return res.json() as {
      memories: Array<{
        text: string;
        memory_id: string;
        score: number;
        score_parts?: Record<string, number>;
        last_accessed_at: string | null;
      }>;
      total: number;
    };
  };
  const texts = async (key: string, query: string) => (await search(key, query)).memories.map((m) => m.text);

  it('ranks a stronger keyword match first', async () => {
    const { user } = await seed([
      { text: 'deployment notes mention postgres once among many other words about the weather and lunch' },
      { text: 'postgres postgres tuning: postgres vacuum and postgres indexes' },
    ]);
    expect(await texts(user.key, 'search=postgres')).toEqual([
      'postgres postgres tuning: postgres vacuum and postgres indexes',
      'deployment notes mention postgres once among many other words about the weather and lunch',
    ]);
  });

  it('ranks a memory matching more of the words first', async () => {
    const { user } = await seed([
      { text: 'retry logic for http clients' },
      { text: 'retry logic with exponential backoff for http clients' },
    ]);
    expect((await texts(user.key, 'search=exponential%20backoff%20retry'))[0]).toBe(
      'retry logic with exponential backoff for http clients',
    );
  });

  it('ranks high before medium before low priority, absent counting as medium', async () => {
    const { user } = await seed([
      { text: 'lint rule L', metadata: { priority: 'low' } },
      { text: 'lint rule M', metadata: { priority: 'medium' } },
      { text: 'lint rule H', metadata: { priority: 'high' } },
    ]);
    expect(await texts(user.key, 'search=lint')).toEqual(['lint rule H', 'lint rule M', 'lint rule L']);
    expect(await texts(user.key, 'search=')).toEqual(['lint rule H', 'lint rule M', 'lint rule L']);
    const { user: other } = await seed([{ text: 'fmt alpha', metadata: { priority: 'low' } }, { text: 'fmt gamma' }]);
    expect(await texts(other.key, 'search=fmt')).toEqual(['fmt gamma', 'fmt alpha']);
  });

  it('ranks recently accessed before stale', async () => {
    clock.set('2026-11-21T10:00:00.000Z');
    const { user, ids } = await seed([{ text: 'naming convention one' }, { text: 'naming convention two' }]);
    // Same creation time; 20 days later one of them is read.
    clock.set('2026-12-11T10:00:00.000Z');
    const read = await t.request(user.key, { method: 'GET', url: `/api/v1/memories/${ids[0]}` });
    expect(read.json().last_accessed_at).toBe('2026-12-11T10:00:00.000Z');
    await t.container.access.flush();
    expect(await texts(user.key, 'search=naming')).toEqual(['naming convention one', 'naming convention two']);
    expect(await texts(user.key, 'search=')).toEqual(['naming convention one', 'naming convention two']);
  });

  it('ranks the project itself, then descendants, then ancestors, then global; unrelated projects are not candidates', async () => {
    const { user } = await seed([
      { text: 'style global' },
      { text: 'style ancestor', project_name: 'acme' },
      { text: 'style descendant', project_name: 'acme/backend/api' },
      { text: 'style self', project_name: 'acme/backend' },
      { text: 'style sibling', project_name: 'acme/frontend' },
      { text: 'style lookalike', project_name: 'acme/backend2' },
    ]);
    const expected = ['style self', 'style descendant', 'style ancestor', 'style global'];
    expect(await texts(user.key, 'search=style&project_name=acme/backend')).toEqual(expected);
    expect(await texts(user.key, 'search=&project_name=acme/backend')).toEqual(expected);
    expect((await search(user.key, 'search=&project_name=acme/backend')).total).toBe(4);
    // Without a project every memory is a candidate.
    expect((await search(user.key, 'search=style')).total).toBe(6);
  });

  it('ranks a nearer ancestor before a farther one', async () => {
    const { user } = await seed([
      { text: 'doc far', project_name: 'a' },
      { text: 'doc near', project_name: 'a/b' },
    ]);
    expect(await texts(user.key, 'search=doc&project_name=a/b/c')).toEqual(['doc near', 'doc far']);
  });

  it('lets a much better keyword match beat priority alone', async () => {
    const { user } = await seed([
      {
        text: 'a long memo that mentions caching only in passing among unrelated words',
        metadata: { priority: 'high' },
      },
      { text: 'caching caching: caching strategy and caching layers', metadata: { priority: 'low' } },
    ]);
    expect((await texts(user.key, 'search=caching'))[0]).toBe('caching caching: caching strategy and caching layers');
  });

  it('returns only matching memories, searches category and tags, applies filters, and explains scores', async () => {
    const { user } = await seed([
      { text: 'alpha', metadata: { category: 'workflow_procedures', tags: ['release'] } },
      { text: 'beta', metadata: { tags: ['release', 'ops'], priority: 'high' } },
      { text: 'gamma' },
    ]);
    expect(await texts(user.key, 'search=release')).toEqual(['beta', 'alpha']);
    expect(await texts(user.key, 'search=workflow_procedures')).toEqual(['alpha']);
    expect(await texts(user.key, 'search=release&tag=ops')).toEqual(['beta']);
    expect(await texts(user.key, 'search=release&priority=high')).toEqual(['beta']);
    expect(await texts(user.key, 'search=nothing-matches-this')).toEqual([]);

    const explained = await search(user.key, 'search=release&explain=true');
    for (const m of explained.memories) {
      const p = m.score_parts as unknown as Record<'keyword' | 'project' | 'priority' | 'recency', number> & {
        weights: Record<'keyword' | 'project' | 'priority' | 'recency', number>;
      };
      const sum =
        p.keyword * p.weights.keyword +
        p.project * p.weights.project +
        p.priority * p.weights.priority +
        p.recency * p.weights.recency;
      expect(Math.abs(sum - m.score)).toBeLessThan(1e-5);
      for (const part of ['keyword', 'project', 'priority', 'recency'] as const) {
        expect(p[part]).toBeGreaterThanOrEqual(0);
        expect(p[part]).toBeLessThanOrEqual(1);
      }
    }
    const plain = await search(user.key, 'search=release');
    expect(plain.memories[0]).not.toHaveProperty('score_parts');
    expect(typeof plain.memories[0]?.score).toBe('number');
    // Lists without search carry no score.
    expect((await search(user.key, 'per_page=5')).memories[0]).not.toHaveProperty('score');
  });

  it('treats search hits as accessed, in the answer at once and in storage after the batch', async () => {
    clock.set('2027-01-01T00:00:00.000Z');
    const { user, ids } = await seed([{ text: 'hit me' }, { text: 'not me' }]);
    clock.set('2027-01-02T00:00:00.000Z');
    const result = await search(user.key, 'search=hit');
    expect(result.memories.map((m) => m.last_accessed_at)).toEqual(['2027-01-02T00:00:00.000Z']);
    await t.container.access.flush();
    const rows = await t.container.database.db
      .selectFrom('memories')
      .select(['id', 'last_accessed_at'])
      .where('id', 'in', ids)
      .execute();
    const byId = Object.fromEntries(rows.map((r) => [r.id, r.last_accessed_at]));
    expect(byId[ids[0] as string]).toBe('2027-01-02T00:00:00.000Z');
    expect(byId[ids[1] as string]).toBeNull();
  });

  it('paginates ranked results with the true total', async () => {
    const { user } = await seed(
      Array.from({ length: 7 }, (_, i) => ({ text: `page item ${i}`, metadata: { priority: i % 2 ? 'high' : 'low' } })),
    );
    const first = await search(user.key, 'search=item&per_page=3');
    const third = await search(user.key, 'search=item&per_page=3&page=3');
    expect(first.total).toBe(7);
    expect(first.memories).toHaveLength(3);
    expect(third.memories).toHaveLength(1);
    const all = await search(user.key, 'search=item&per_page=7');
    expect(
      [...first.memories, ...(await search(user.key, 'search=item&per_page=3&page=2')).memories, ...third.memories].map(
        (m) => m.memory_id,
      ),
    ).toEqual(all.memories.map((m) => m.memory_id));
    expect((await search(user.key, 'search=&per_page=3')).total).toBe(7);
  });

  it('is not confused by full-text query syntax in the search string', async () => {
    const { user } = await seed([{ text: 'quotes and stars' }]);
    for (const q of [
      '"',
      'quotes"',
      'AND',
      'OR quotes',
      'NEAR(quotes',
      'quotes*',
      'owner:x',
      '{text}:quotes',
      '^quotes',
      'a:b:c',
    ]) {
      const res = await t.request(user.key, { method: 'GET', url: `/api/v1/memories?search=${encodeURIComponent(q)}` });
      expect(res.statusCode, q).toBe(200);
    }
    expect(await texts(user.key, `search=${encodeURIComponent('"quotes" OR (stars')}`)).toEqual(['quotes and stars']);
  });
});

describe.each(DIALECTS)('memory search with more matches than candidates (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { MEMORY_SEARCH_CANDIDATES: '100' });
  });
  afterAll(async () => t?.close());

  it('still finds old high-priority and in-project matches, and counts every match', async () => {
    const user = await t.user();
    const create = (payload: Record<string, unknown>) =>
      t
        .request(user.key, { method: 'POST', url: '/api/v1/memories', payload })
        .then((res) => res.json().memory_id as string);
    // The oldest memories: one critical, one in the searched project; then 150 newer ordinary matches.
    const critical = await create({ text: 'widget critical rule', metadata: { priority: 'high' } });
    const inProject = await create({ text: 'widget project rule', project_name: 'acme/app' });
    // 150 newer ordinary matches in the parent project, and 10 in an unrelated one.
    for (let i = 0; i < 150; i++)
      await create({ text: `widget note ${i}`, project_name: 'acme', metadata: { priority: 'low' } });
    for (let i = 0; i < 10; i++) await create({ text: `widget elsewhere ${i}`, project_name: 'other' });

    const ids = (body: { memories: Array<{ memory_id: string }> }) => body.memories.map((m) => m.memory_id);
    const scoped = (
      await t.request(user.key, {
        method: 'GET',
        url: '/api/v1/memories?search=widget&project_name=acme/app&per_page=5',
      })
    ).json();
    expect(scoped.total).toBe(152); // 'other' is not a candidate project for acme/app
    expect(ids(scoped)[0]).toBe(inProject);
    expect(ids(scoped)).toContain(critical);

    const everywhere = (
      await t.request(user.key, { method: 'GET', url: '/api/v1/memories?search=widget&per_page=5' })
    ).json();
    expect(everywhere.total).toBe(162);
    expect(ids(everywhere)[0]).toBe(critical);
  });
});
