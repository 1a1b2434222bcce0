import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

type User = Awaited<ReturnType<TestApp['user']>>;
type Listed = { memories: Array<{ memory_id: string }>; total: number };

/** Issue 18, items 1–3 over REST (`/memories`, `/context`), on both databases. */
describe.each(DIALECTS)('memory lifecycle over REST (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { clock });
    alice = await t.user();
    bob = await t.user();
  });
  afterAll(async () => t?.close());

  const create = (key: string, payload: Record<string, unknown>) =>
    t.request(key, { method: 'POST', url: '/api/v1/memories', payload });
  const put = (key: string, id: string, payload: Record<string, unknown>) =>
    t.request(key, { method: 'PUT', url: `/api/v1/memories/${id}`, payload });
  const ids = async (key: string, query: string) => {
    const res = await t.request(key, { method: 'GET', url: `/api/v1/memories${query}` });
    expect(res.statusCode).toBe(200);
    return (res.json() as Listed).memories.map((m) => m.memory_id);
  };
  const contextIds = async (key: string, project: string) => {
    const res = await t.request(key, { method: 'GET', url: `/api/v1/context?project_name=${project}` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    return {
      pinned: body.pinned_memories.map((m: { memory_id: string }) => m.memory_id) as string[],
      all: [...body.pinned_memories, ...body.relevant_memories].map((m: { memory_id: string }) => m.memory_id),
    };
  };

  it('expires_at / ttl_seconds: hidden from lists, search and context; readable by id; include_expired and stale', async () => {
    const created = await create(alice.key, {
      text: 'Code freeze until Friday',
      project_name: 'r/exp',
      ttl_seconds: 60,
    });
    expect(created.statusCode).toBe(201);
    const memory = created.json();
    expect(memory).toMatchObject({ expires_at: '2026-11-21T10:01:00.000Z', pinned: false, superseded_by: null });
    const kept = (
      await create(alice.key, { text: 'Freeze checklist lives in the wiki', project_name: 'r/exp' })
    ).json();
    expect(await ids(alice.key, '?project_name=r/exp&search=freeze')).toHaveLength(2);
    clock.advance(61_000);
    expect(await ids(alice.key, '?project_name=r/exp')).toEqual([kept.memory_id]);
    expect(await ids(alice.key, '?project_name=r/exp&search=freeze')).toEqual([kept.memory_id]);
    expect((await contextIds(alice.key, 'r/exp')).all).toEqual([kept.memory_id]);
    const read = await t.request(alice.key, { method: 'GET', url: `/api/v1/memories/${memory.memory_id}` });
    expect(read.statusCode).toBe(200);
    expect(read.json().expires_at).toBe('2026-11-21T10:01:00.000Z');
    expect((await ids(alice.key, '?project_name=r/exp&include_expired=true')).sort()).toEqual(
      [memory.memory_id, kept.memory_id].sort(),
    );
    expect(await ids(alice.key, '?project_name=r/exp&stale=true')).toEqual([memory.memory_id]);
    expect(await ids(alice.key, '?project_name=r/exp&search=freeze&include_expired=true')).toHaveLength(2);
  });

  it('refuses bad lifecycle input with 400 and details', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ text: 'a', expires_at: 'soon' }, 'expires_at'],
      [{ text: 'a', ttl_seconds: 0 }, 'ttl_seconds'],
      [{ text: 'a', ttl_seconds: '60' }, 'ttl_seconds'],
      [{ text: 'a', expires_at: '2027-01-01T00:00:00Z', ttl_seconds: 60 }, 'ttl_seconds'],
      [{ text: 'a', pinned: 'yes' }, 'pinned'],
      [{ text: 'a', supersedes: 'mem_x' }, 'supersedes'],
      [
        { text: 'a', supersedes: Array.from({ length: 21 }, (_, i) => `mem_${String(i).padStart(26, '0')}`) },
        'supersedes',
      ],
      [{ text: 'a', superseded_by: null }, 'superseded_by'],
    ];
    for (const [payload, field] of cases) {
      const res = await create(alice.key, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(Object.keys(res.json().details), JSON.stringify(payload)).toContain(field);
    }
    const target = (await create(alice.key, { text: 'Self target' })).json();
    const self = await put(alice.key, target.memory_id, { supersedes: [target.memory_id] });
    expect(self.statusCode).toBe(400);
    expect(self.json().details).toHaveProperty('supersedes');
    const readOnly = await put(alice.key, target.memory_id, { superseded_by: null });
    expect(readOnly.statusCode).toBe(400);
  });

  it('supersedes: 404 for another user’s memory with nothing written; links shown and removable', async () => {
    const old = (await create(alice.key, { text: 'Payments use Stripe v1', project_name: 'r/sup' })).json();
    const bobs = (await create(bob.key, { text: 'Bob payments secret', project_name: 'r/sup' })).json();
    const refused = await create(alice.key, {
      text: 'Payments use Stripe v2',
      project_name: 'r/sup',
      supersedes: [old.memory_id, bobs.memory_id],
    });
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual({ error: 'not_found', message: `Memory ${bobs.memory_id} not found` });
    expect(JSON.stringify(refused.json())).not.toContain('secret');
    expect(await ids(alice.key, '?project_name=r/sup&include_expired=true')).toEqual([old.memory_id]);
    const bobsAfter = await t.request(bob.key, { method: 'GET', url: `/api/v1/memories/${bobs.memory_id}` });
    expect(bobsAfter.json().superseded_by).toBeNull();

    const next = await create(alice.key, {
      text: 'Payments use Stripe v2',
      project_name: 'r/sup',
      supersedes: [old.memory_id],
    });
    expect(next.statusCode).toBe(201);
    const newer = next.json();
    expect(await ids(alice.key, '?project_name=r/sup')).toEqual([newer.memory_id]);
    expect(await ids(alice.key, '?project_name=r/sup&search=payments stripe')).toEqual([newer.memory_id]);
    const inContext = (await contextIds(alice.key, 'r/sup')).all;
    expect(inContext).toContain(newer.memory_id);
    expect(inContext).not.toContain(old.memory_id);
    const oldRead = (await t.request(alice.key, { method: 'GET', url: `/api/v1/memories/${old.memory_id}` })).json();
    expect(oldRead.superseded_by).toBe(newer.memory_id);
    // Bob cannot change Alice's links, and naming Alice's memory from Bob's is a 404.
    expect((await put(bob.key, newer.memory_id, { supersedes: [] })).statusCode).toBe(404);
    expect((await put(bob.key, bobs.memory_id, { supersedes: [old.memory_id] })).statusCode).toBe(404);
    // supersedes: [] on the newer one brings the older back.
    const released = await put(alice.key, newer.memory_id, { supersedes: [] });
    expect(released.statusCode).toBe(200);
    expect((await ids(alice.key, '?project_name=r/sup')).sort()).toEqual([old.memory_id, newer.memory_id].sort());
  });

  it('pinned: first in GET /context for its project, and never expires while pinned', async () => {
    const pin = (
      await create(alice.key, {
        text: 'Run the linter before pushing',
        project_name: 'r/pin',
        pinned: true,
        ttl_seconds: 1,
      })
    ).json();
    expect(pin.pinned).toBe(true);
    await create(alice.key, {
      text: 'Release notes go in CHANGELOG',
      project_name: 'r/pin',
      metadata: { priority: 'high' },
    });
    clock.advance(5_000);
    expect((await contextIds(alice.key, 'r/pin')).pinned[0]).toBe(pin.memory_id);
    expect(await ids(alice.key, '?project_name=r/pin&search=linter')).toEqual([pin.memory_id]);
    expect((await contextIds(bob.key, 'r/pin')).all).toEqual([]);
    const unpinned = await put(alice.key, pin.memory_id, { pinned: false });
    expect(unpinned.json().pinned).toBe(false);
    expect((await contextIds(alice.key, 'r/pin')).all).not.toContain(pin.memory_id);
  });
});
