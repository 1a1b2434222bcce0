import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdGenerator, type IdGenerator } from '../../src/domain/common/ids.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

type User = Awaited<ReturnType<TestApp['user']>>;

const BATCH = '/api/v1/memories/batch';
/** 8 KiB for one memory, so 64 KiB for a batch (MEMORY_BATCH_BODY_FACTOR). */
const BODY_LIMIT = 8192;

describe.each(DIALECTS)('POST /api/v1/memories/batch (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  // Ids as usual, except where the test plans one (`undefined` in the plan: a fresh id).
  const realIds = createIdGenerator(clock);
  const planned: Array<string | undefined> = [];
  const ids: IdGenerator = (prefix) => planned.shift() ?? realIds(prefix);
  let t: TestApp;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    t = await createTestApp(dialect, { BODY_LIMIT_BYTES: String(BODY_LIMIT) }, { clock, ids });
    alice = await t.user();
    bob = await t.user();
  });
  afterAll(async () => t?.close());

  const batch = (key: string, payload: unknown) =>
    t.request(key, { method: 'POST', url: BATCH, payload: payload as object });
  const count = async (key: string) =>
    (await t.request(key, { method: 'GET', url: '/api/v1/memories?per_page=1' })).json().total as number;

  it('creates every memory with 201, in the order sent, each readable like one created alone', async () => {
    const before = await count(alice.key);
    const res = await batch(alice.key, {
      memories: [
        { text: 'First', project_name: 'acme/api', metadata: { priority: 'high', tags: ['a', 'a', ' b '] } },
        { text: 'Second' },
        { text: 'Third', project_name: null, metadata: { owner: 'me' } },
      ],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      memories: [
        {
          memory_id: expect.stringMatching(/^mem_[0-9A-Z]{26}$/),
          text: 'First',
          project_name: 'acme/api',
          metadata: { priority: 'high', tags: ['a', 'b'] },
          created_at: '2026-11-21T10:00:00.000Z',
          updated_at: '2026-11-21T10:00:00.000Z',
          last_accessed_at: null,
          expires_at: null,
          pinned: false,
          superseded_by: null,
        },
        expect.objectContaining({ text: 'Second', project_name: null, metadata: {} }),
        expect.objectContaining({ text: 'Third', project_name: null, metadata: { owner: 'me' } }),
      ],
      message: 'Memories created successfully',
    });
    expect(new Set(body.memories.map((m: { memory_id: string }) => m.memory_id)).size).toBe(3);
    expect(await count(alice.key)).toBe(before + 3);
    const read = await t.request(alice.key, { method: 'GET', url: `/api/v1/memories/${body.memories[0].memory_id}` });
    expect(read.json()).toMatchObject({ text: 'First', metadata: { priority: 'high', tags: ['a', 'b'] } });
    // Indexed for search like any other memory.
    const found = await t.request(alice.key, { method: 'GET', url: '/api/v1/memories?search=second' });
    expect(found.json().memories.map((m: { text: string }) => m.text)).toEqual(['Second']);
  });

  it('writes nothing when any item is invalid, naming every bad field of every item by its index', async () => {
    const before = await count(alice.key);
    const res = await batch(alice.key, {
      memories: [
        { text: 'Fine' },
        { text: '' },
        { text: 'Fine too' },
        { text: 'x', metadata: { priority: 'urgent' }, id: 'mem_x' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'validation_error',
      message: expect.any(String),
      details: {
        'memories.1.text': 'Text is required',
        'memories.3.metadata.priority': 'Priority must be high, medium or low',
        'memories.3.id': 'Unknown field',
      },
    });
    expect(await count(alice.key)).toBe(before);
  });

  it('refuses an empty list, a missing list, unknown fields and more than 100 items', async () => {
    const cases: [unknown, Record<string, string>][] = [
      [{ memories: [] }, { memories: 'At least one memory is required' }],
      [{}, { memories: expect.any(String) }],
      [{ memories: 'text' }, { memories: expect.any(String) }],
      [{ memories: [{ text: 'a' }], dry_run: true }, { dry_run: 'Unknown field' }],
      [
        { memories: Array.from({ length: 101 }, (_, i) => ({ text: `m${i}` })) },
        { memories: 'At most 100 memories per batch' },
      ],
    ];
    const before = await count(alice.key);
    for (const [payload, details] of cases) {
      const res = await batch(alice.key, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json()).toEqual({ error: 'validation_error', message: expect.any(String), details });
    }
    // 100 is allowed.
    const hundred = await batch(alice.key, { memories: Array.from({ length: 100 }, (_, i) => ({ text: `h${i}` })) });
    expect(hundred.statusCode).toBe(201);
    expect(hundred.json().memories).toHaveLength(100);
    expect(await count(alice.key)).toBe(before + 100);
  });

  it('takes a body over the single-memory limit, and answers 413 over the batch limit, writing nothing', async () => {
    const before = await count(alice.key);
    const item = { text: 'y'.repeat(6000) };
    const within = await batch(alice.key, { memories: [item, item, item] }); // ~18 KiB: over 8, under 64
    expect(within.statusCode).toBe(201);
    const over = await batch(alice.key, { memories: Array.from({ length: 11 }, () => item) }); // ~66 KiB
    expect(over.statusCode).toBe(413);
    expect(over.json()).toMatchObject({ error: 'payload_too_large' });
    const notJson = await t.request(alice.key, {
      method: 'POST',
      url: BATCH,
      payload: 'text',
      headers: { 'content-type': 'text/plain' },
    });
    expect(notJson.statusCode).toBe(415);
    expect(await count(alice.key)).toBe(before + 3);
  });

  it('rolls the whole batch back when the database refuses one item', async () => {
    const before = await count(alice.key);
    const first = await batch(alice.key, { memories: [{ text: 'Taken id' }] });
    const taken = first.json().memories[0].memory_id as string;
    // The second item of the next batch gets an id that exists: its insert fails after the first's succeeded.
    planned.push(undefined, taken);
    const res = await batch(alice.key, { memories: [{ text: 'Rolled back' }, { text: 'Clash' }, { text: 'Never' }] });
    expect(res.statusCode).toBe(500);
    expect(await count(alice.key)).toBe(before + 1);
    const found = await t.request(alice.key, { method: 'GET', url: '/api/v1/memories?search=rolled' });
    expect(found.json().memories).toEqual([]);
  });

  it('leaves other users’ data untouched and keeps the new memories out of their reach', async () => {
    await t.request(bob.key, { method: 'POST', url: '/api/v1/memories', payload: { text: 'Bob’s own' } });
    const bobBefore = await t.request(bob.key, { method: 'GET', url: '/api/v1/memories' });
    const res = await batch(alice.key, { memories: [{ text: 'Alice one' }, { text: 'Alice two' }] });
    expect(res.statusCode).toBe(201);
    const bobAfter = await t.request(bob.key, { method: 'GET', url: '/api/v1/memories' });
    expect(bobAfter.json()).toEqual(bobBefore.json());
    for (const memory of res.json().memories) {
      const read = await t.request(bob.key, { method: 'GET', url: `/api/v1/memories/${memory.memory_id}` });
      expect(read.statusCode).toBe(404);
    }
  });

  it('counts as one request for the rate limit', async () => {
    const limited = await t.user({ rateLimit: 2 });
    const ten = { memories: Array.from({ length: 10 }, (_, i) => ({ text: `r${i}` })) };
    const first = await batch(limited.key, ten);
    expect(first.statusCode).toBe(201);
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect((await batch(limited.key, ten)).statusCode).toBe(201);
    expect((await batch(limited.key, ten)).statusCode).toBe(429);
  });

  it('needs a key', async () => {
    const res = await t.request(undefined, { method: 'POST', url: BATCH, payload: { memories: [{ text: 'a' }] } });
    expect(res.statusCode).toBe(401);
  });

  it('is the dashboard’s too, with its session and same-origin rule', async () => {
    const ORIGIN = 'http://localhost:80';
    const signup = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/signup',
      headers: { origin: ORIGIN },
      payload: { email: `batch-${dialect}@example.com`, password: 'correct horse battery staple' },
    });
    expect(signup.statusCode).toBe(201);
    const cookie = String(signup.headers['set-cookie']).split(';')[0] ?? '';
    const url = '/dashboard/api/memories/batch';
    const payload = { memories: [{ text: 'From the dashboard' }, { text: 'Another' }] };
    const created = await t.app.inject({ method: 'POST', url, headers: { cookie, origin: ORIGIN }, payload });
    expect(created.statusCode).toBe(201);
    expect(created.json().memories).toHaveLength(2);
    const crossSite = await t.app.inject({
      method: 'POST',
      url,
      headers: { cookie, origin: 'https://evil.example' },
      payload,
    });
    expect(crossSite.statusCode).toBe(403);
    const broken = await t.app.inject({
      method: 'POST',
      url,
      headers: { cookie, origin: ORIGIN },
      payload: { memories: [{ text: '' }] },
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().details).toHaveProperty(['memories.0.text']);
  });
});
