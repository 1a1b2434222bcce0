import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
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

    // The count follows deletes and updates at once (one word, no scope: read from the index's own count).
    await t.request(user.key, { method: 'DELETE', url: `/api/v1/memories/${inProject}` });
    const put = await t.request(user.key, {
      method: 'PUT',
      url: `/api/v1/memories/${critical}`,
      payload: { text: 'gadget rule' },
    });
    expect(put.statusCode).toBe(200);
    const after = (
      await t.request(user.key, { method: 'GET', url: '/api/v1/memories?search=widget&per_page=5' })
    ).json();
    expect(after.total).toBe(160);
    expect(ids(after)).not.toContain(critical);
  });
});

/**
 * Tenancy of statistics (issue 12, item 7): BM25's document count, average length and document
 * frequencies are the searching user's own, so nothing another user writes changes a user's scores. The
 * second reading is made by a fresh instance over the same database, so no cached statistic can hide a
 * change.
 */
describe.each(DIALECTS)('memory search statistics per user (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { clock });
  });
  afterAll(async () => t?.close());

  const QUERIES = [
    'search=deploy&explain=true',
    'search=deploy%20rollback%20canary&explain=true',
    'search=postgres%20vacuum&explain=true&project_name=acme/api',
    'search=&explain=true&project_name=acme/api',
    'search=zebra&explain=true',
  ];

  async function readings(app: { inject: TestApp['app']['inject'] }, key: string) {
    const bodies: string[] = [];
    for (const query of QUERIES) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/v1/memories?${query}`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.statusCode, query).toBe(200);
      bodies.push(res.body);
    }
    return bodies;
  }

  it("leaves a user's scores and explanations byte-identical when another user adds, changes and deletes memories", async () => {
    const a = await t.user();
    const b = await t.user();
    const post = (key: string, payload: Record<string, unknown>) =>
      t.request(key, { method: 'POST', url: '/api/v1/memories', payload }).then((res) => {
        expect(res.statusCode).toBe(201);
        return res.json().memory_id as string;
      });
    for (const payload of [
      { text: 'deploy with a canary first, then roll out', project_name: 'acme/api' },
      { text: 'rollback: deploy the previous image and deploy again', metadata: { priority: 'high' } },
      { text: 'postgres vacuum settings for the api database', project_name: 'acme/api' },
      { text: 'postgres connection pool sizing', project_name: 'acme' },
      { text: 'a zebra crossing has nothing to do with deploy' },
      { text: 'unrelated memo about lunch', metadata: { category: 'misc', tags: ['deploy'] } },
    ])
      await post(a.key, payload);

    const before = await readings(t.app, a.key);
    expect(JSON.parse(before[0] as string).memories.length).toBeGreaterThan(1);

    // B writes much more, with the same words and others, at other lengths, then changes and deletes some.
    const bIds: string[] = [];
    for (let i = 0; i < 60; i++) {
      bIds.push(
        await post(b.key, {
          text: `${'deploy '.repeat(1 + (i % 5))}postgres vacuum zebra ${i} ${'filler words '.repeat(i % 7)}`,
          ...(i % 3 === 0 && { project_name: 'acme/api' }),
          ...(i % 4 === 0 && { metadata: { priority: 'high', tags: ['deploy', 'canary'] } }),
        }),
      );
    }
    for (const id of bIds.slice(0, 10)) {
      const res = await t.request(b.key, {
        method: 'PUT',
        url: `/api/v1/memories/${id}`,
        payload: { text: 'rollback rollback canary' },
      });
      expect(res.statusCode).toBe(200);
    }
    for (const id of bIds.slice(10, 20)) {
      expect((await t.request(b.key, { method: 'DELETE', url: `/api/v1/memories/${id}` })).statusCode).toBe(200);
    }
    await t.container.access.flush();

    // The same instance, and a fresh one over the same database (no cached statistics).
    expect(await readings(t.app, a.key)).toEqual(before);
    const config = loadConfig({
      DATABASE_URL: t.database.url,
      LOG_LEVEL: 'silent',
      USAGE_FLUSH_INTERVAL_MS: '3600000',
    });
    const container = await createContainer(config, { clock });
    const fresh = await buildApp(container, { logger: false });
    try {
      await fresh.ready();
      expect(await readings(fresh, a.key)).toEqual(before);
    } finally {
      await fresh.close();
      await container.close();
    }
  });
});

/** Ties (issue 13, item 6): the unrounded score decides, then the more recent access, then the newer row. */
describe.each(DIALECTS)('memory search ties (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { clock });
  });
  afterAll(async () => t?.close());

  it('puts the memory read seconds ago first, although rounding makes the scores equal', async () => {
    const user = await t.user();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await t.request(user.key, {
        method: 'POST',
        url: '/api/v1/memories?dedupe=false', // two identical memories on purpose
        payload: { text: 'tie breaker note' },
      });
      ids.push(res.json().memory_id);
    }
    const [older, newer] = ids as [string, string];
    const read = async (id: string) =>
      expect((await t.request(user.key, { method: 'GET', url: `/api/v1/memories/${id}` })).statusCode).toBe(200);
    const order = async (query: string) => {
      const res = await t.request(user.key, { method: 'GET', url: `/api/v1/memories?${query}&explain=true` });
      return res.json().memories as Array<{ memory_id: string; score: number; score_parts: Record<string, number> }>;
    };

    // Never read: equal in every factor, so the newer row comes first.
    expect((await order('search=tie')).map((m) => m.memory_id)).toEqual([newer, older]);

    // 30 days on, the newer one is read, then the older one 5 s later; the search comes 5 s after that.
    clock.advance(30 * 86_400_000);
    await read(newer);
    clock.advance(5_000);
    await read(older);
    clock.advance(5_000);
    await t.container.access.flush();
    for (const query of ['search=tie', 'search=']) {
      const ranked = await order(query);
      expect(
        ranked.map((m) => m.memory_id),
        query,
      ).toEqual([older, newer]);
      // Rounded to 1e-6 the two scores are equal: only the unrounded score (or the access time) tells them apart.
      expect(ranked[0]?.score, query).toBe(ranked[1]?.score);
      // explain shows rounded parts only.
      for (const m of ranked) {
        for (const part of ['keyword', 'project', 'recency'] as const) {
          expect(Math.round((m.score_parts[part] as number) * 1e6) / 1e6).toBe(m.score_parts[part]);
        }
      }
    }
  });
});

/**
 * Search that understands questions (issue 16): question and filler words, word forms, neighbours written
 * as one word, synonyms, prefixes and typos, each visible in `explain`. The labelled evaluation
 * (test/eval/search-eval.test.ts) measures the quality; these fix each behaviour on both databases.
 */
describe.each(DIALECTS)('memory search query analysis (%s)', (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    const user = await t.user();
    key = user.key;
    for (const text of [
      'To roll back a bad deployment on Kubernetes, revert the image tag in the gitops repository.',
      'How we do code review: we answer within a day and we do not merge without approval.',
      'What do we do when the build is red? We fix it or we revert within 30 minutes.',
      'Rollback of an iOS release is not possible; pause the phased release instead.',
      'Configuration lives in environment variables validated at startup.',
      'Deploy freeze during month-end close.',
    ]) {
      const res = await t.request(key, { method: 'POST', url: '/api/v1/memories', payload: { text } });
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(async () => t?.close());

  type Explained = {
    text: string;
    score: number;
    score_parts: {
      keyword: number;
      project: number;
      priority: number;
      recency: number;
      weights: Record<'keyword' | 'project' | 'priority' | 'recency', number>;
      bm25: number;
      coverage: number;
      proximity: number;
      matched: Array<{ word: string; term: string; kind: string }>;
      ignored: string[];
    };
  };
  const search = async (q: string) => {
    const res = await t.request(key, {
      method: 'GET',
      url: `/api/v1/memories?search=${encodeURIComponent(q)}&explain=true`,
    });
    expect(res.statusCode, q).toBe(200);
    return res.json().memories as Explained[];
  };

  it('ignores question and filler words, and explains which', async () => {
    const [first] = await search('how do we roll back a bad deploy?');
    expect(first?.text).toMatch(/^To roll back a bad deployment/);
    expect(first?.score_parts.ignored).toEqual(['how', 'do', 'we', 'a']);
    expect(first?.score_parts.matched.map((m) => m.word)).toEqual(['roll', 'back', 'bad', 'deploy']);
    // Neighbouring words of the question stand together in it.
    expect(first?.score_parts.proximity).toBe(1);
  });

  it('matches word forms, words written as one, synonyms, prefixes and typos', async () => {
    const kind = (found: Explained[], word: string) => found[0]?.score_parts.matched.find((m) => m.word === word)?.kind;
    const joined = await search('roll back ios');
    expect(joined[0]?.text).toMatch(/^Rollback of an iOS release/);
    expect(kind(joined, 'roll')).toBe('joined');
    const synonym = await search('undo');
    expect(synonym.map((m) => m.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Rollback of an iOS/), expect.stringMatching(/revert/)]),
    );
    expect(kind(synonym, 'undo')).toBe('synonym');
    const prefix = await search('kube');
    expect(prefix[0]?.text).toMatch(/Kubernetes/);
    expect(kind(prefix, 'kube')).toBe('prefix');
    const typo = await search('kuberentes');
    expect(typo[0]?.text).toMatch(/Kubernetes/);
    expect(kind(typo, 'kuberentes')).toBe('typo');
    const forms = await search('configured deploying');
    expect(forms.map((m) => m.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Configuration/), expect.stringMatching(/^Deploy freeze/)]),
    );
  });

  it('keeps every part of the score in [0, 1] and the score their weighted sum', async () => {
    for (const q of ['how do we roll back a bad deploy?', 'kube', 'kuberentes revert', 'what is this']) {
      for (const m of await search(q)) {
        const p = m.score_parts;
        const sum =
          p.keyword * p.weights.keyword +
          p.project * p.weights.project +
          p.priority * p.weights.priority +
          p.recency * p.weights.recency;
        expect(Math.abs(sum - m.score), q).toBeLessThan(1e-5);
        for (const part of [p.keyword, p.coverage, p.proximity]) {
          expect(part).toBeGreaterThanOrEqual(0);
          expect(part).toBeLessThanOrEqual(1);
        }
      }
    }
    // All filler: nothing is left out, so such a search still finds what it says.
    expect((await search('what is this'))[0]?.score_parts.ignored).toEqual([]);
  });

  it('answers the longest search, with 32 unknown words of every length', async () => {
    const words = Array.from({ length: 32 }, (_, i) => `zq${'x'.repeat(i % 26)}${String.fromCharCode(97 + (i % 26))}`);
    const res = await t.request(key, {
      method: 'GET',
      url: `/api/v1/memories?search=${encodeURIComponent(words.join(' '))}&explain=true`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().memories).toEqual([]);
  });
});
