import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

type User = Awaited<ReturnType<TestApp['user']>>;

/** Memory history over REST: versions, one version, restore, retention, isolation (issue 18, item 5). */
describe.each(DIALECTS)('memory history REST API (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    // A small retention, so pruning shows within a few writes.
    t = await createTestApp(dialect, { MEMORY_VERSION_RETENTION: '3' }, { clock });
    alice = await t.user();
    bob = await t.user();
  });
  afterAll(async () => t?.close());

  const create = async (key: string, payload: Record<string, unknown>) =>
    (await t.request(key, { method: 'POST', url: '/api/v1/memories?dedupe=false', payload })).json();
  const put = (key: string, id: string, payload: Record<string, unknown>) =>
    t.request(key, { method: 'PUT', url: `/api/v1/memories/${id}`, payload });
  const versions = (key: string, id: string, query = '') =>
    t.request(key, { method: 'GET', url: `/api/v1/memories/${id}/versions${query}` });
  const version = (key: string, id: string, n: number | string) =>
    t.request(key, { method: 'GET', url: `/api/v1/memories/${id}/versions/${n}` });
  const restore = (key: string, id: string, payload: unknown) =>
    t.request(key, { method: 'POST', url: `/api/v1/memories/${id}/restore`, payload: payload as object });
  const tick = () => clock.advance(60_000);

  it('a new memory is version 1: its current row, the only version', async () => {
    const m = await create(alice.key, { text: 'First wording', project_name: 'acme', metadata: { priority: 'high' } });
    const res = await versions(alice.key, m.memory_id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      versions: [
        {
          version: 1,
          current: true,
          project_name: 'acme',
          text_preview: 'First wording',
          text_length: 13,
          created_at: m.created_at,
        },
      ],
      total: 1,
      page: 1,
      per_page: 20,
      next_cursor: null,
    });
    expect((await version(alice.key, m.memory_id, 1)).json()).toEqual({
      memory_id: m.memory_id,
      version: 1,
      current: true,
      text: 'First wording',
      project_name: 'acme',
      metadata: { priority: 'high' },
      created_at: m.created_at,
    });
    expect((await version(alice.key, m.memory_id, 2)).statusCode).toBe(404);
  });

  it('each change of text, project or metadata keeps the state it replaced; no change keeps none', async () => {
    const m = await create(alice.key, { text: 'v1 text', metadata: { tags: ['a'] } });
    tick();
    expect((await put(alice.key, m.memory_id, { text: 'v2 text' })).statusCode).toBe(200);
    tick();
    expect((await put(alice.key, m.memory_id, { metadata: { priority: 'low' } })).statusCode).toBe(200);
    tick();
    expect((await put(alice.key, m.memory_id, { project_name: 'p/q' })).statusCode).toBe(200);
    tick();
    // The same values again: updated_at moves, no version.
    expect((await put(alice.key, m.memory_id, { text: 'v2 text', metadata: { priority: 'low' } })).statusCode).toBe(
      200,
    );
    const list = (await versions(alice.key, m.memory_id)).json();
    expect(list.total).toBe(4);
    expect(list.versions.map((v: { version: number; current: boolean }) => [v.version, v.current])).toEqual([
      [4, true],
      [3, false],
      [2, false],
      [1, false],
    ]);
    // Each version's time is when it was written, not the last no-op update.
    expect(list.versions.map((v: { created_at: string }) => v.created_at)).toEqual([
      '2026-11-21T10:03:00.000Z',
      '2026-11-21T10:02:00.000Z',
      '2026-11-21T10:01:00.000Z',
      '2026-11-21T10:00:00.000Z',
    ]);
    expect((await version(alice.key, m.memory_id, 1)).json()).toMatchObject({
      text: 'v1 text',
      project_name: null,
      metadata: { tags: ['a'] },
      current: false,
    });
    expect((await version(alice.key, m.memory_id, 3)).json()).toMatchObject({
      text: 'v2 text',
      project_name: null,
      metadata: { tags: ['a'], priority: 'low' },
    });
    expect((await version(alice.key, m.memory_id, 4)).json()).toMatchObject({
      text: 'v2 text',
      project_name: 'p/q',
      current: true,
    });
  });

  it('restores an old version as a new one, keeping the one it replaced', async () => {
    const m = await create(alice.key, { text: 'Original', project_name: 'orig', metadata: { category: 'c1' } });
    tick();
    await put(alice.key, m.memory_id, { text: 'Changed', project_name: null, metadata: { category: null, x: 1 } });
    tick();
    const res = await restore(alice.key, m.memory_id, { version: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      memory_id: m.memory_id,
      text: 'Original',
      project_name: 'orig',
      metadata: { category: 'c1' },
      version: 3,
      message: 'Version 1 restored as version 3',
      updated_at: clock.now().toISOString(),
    });
    const read = (await t.request(alice.key, { method: 'GET', url: `/api/v1/memories/${m.memory_id}` })).json();
    expect(read).toMatchObject({ text: 'Original', project_name: 'orig', metadata: { category: 'c1' } });
    expect((await version(alice.key, m.memory_id, 2)).json()).toMatchObject({ text: 'Changed', metadata: { x: 1 } });
    // The restored memory is searchable by its restored words (the index follows the row).
    const found = (await t.request(alice.key, { method: 'GET', url: '/api/v1/memories?search=original' })).json();
    expect(found.memories.map((x: { memory_id: string }) => x.memory_id)).toContain(m.memory_id);
    // Restoring the current version still makes a new one (as prompts do): history only grows.
    expect((await restore(alice.key, m.memory_id, { version: 3 })).json().version).toBe(4);
  });

  it('keeps MEMORY_VERSION_RETENTION previous versions, dropping the oldest', async () => {
    const m = await create(alice.key, { text: 'r0' });
    for (let i = 1; i <= 6; i++) {
      tick();
      await put(alice.key, m.memory_id, { text: `r${i}` });
    }
    const list = (await versions(alice.key, m.memory_id)).json();
    // Current 7 and the three before it.
    expect(list.versions.map((v: { version: number }) => v.version)).toEqual([7, 6, 5, 4]);
    expect(list.total).toBe(4);
    expect((await version(alice.key, m.memory_id, 3)).statusCode).toBe(404);
    expect((await version(alice.key, m.memory_id, 3)).json().message).toMatch(/version/i);
    expect((await restore(alice.key, m.memory_id, { version: 1 })).statusCode).toBe(404);
  });

  it('pages the versions, by page or by cursor', async () => {
    const m = await create(alice.key, { text: 'p0' });
    for (let i = 1; i <= 3; i++) await put(alice.key, m.memory_id, { text: `p${i}` });
    const first = (await versions(alice.key, m.memory_id, '?per_page=2')).json();
    expect(first.versions.map((v: { version: number }) => v.version)).toEqual([4, 3]);
    expect(first).toMatchObject({ total: 4, page: 1, per_page: 2, next_cursor: '2' });
    const second = (await versions(alice.key, m.memory_id, '?per_page=2&page=2')).json();
    expect(second.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(second.next_cursor).toBeNull();
    const byCursor = (await versions(alice.key, m.memory_id, '?per_page=3&cursor=1')).json();
    expect(byCursor.versions.map((v: { version: number; current: boolean }) => [v.version, v.current])).toEqual([
      [3, false],
      [2, false],
      [1, false],
    ]);
    expect(byCursor.next_cursor).toBeNull();
    const past = (await versions(alice.key, m.memory_id, '?page=9')).json();
    expect(past).toMatchObject({ versions: [], total: 4 });
    expect((await versions(alice.key, m.memory_id, '?per_page=101')).statusCode).toBe(400);
    expect((await versions(alice.key, m.memory_id, '?cursor=2&page=2')).json().details.cursor).toBeTruthy();
  });

  it('previews long texts and reads them whole per version', async () => {
    const long = `${'word '.repeat(2000)}end`;
    const m = await create(alice.key, { text: long });
    await put(alice.key, m.memory_id, { text: 'short now' });
    const [, old] = (await versions(alice.key, m.memory_id)).json().versions;
    expect(old.text_preview).toBe(long.slice(0, 200));
    expect(old.text_length).toBe(long.length);
    expect((await version(alice.key, m.memory_id, 1)).json().text).toBe(long);
  });

  it("another user's memory and its versions are a 404 that tells nothing", async () => {
    const m = await create(alice.key, { text: 'Secret plan' });
    await put(alice.key, m.memory_id, { text: 'Secret plan, revised' });
    const missing = 'mem_00000000000000000000000000';
    for (const res of [
      await versions(bob.key, m.memory_id),
      await version(bob.key, m.memory_id, 1),
      await version(bob.key, m.memory_id, 2),
      await restore(bob.key, m.memory_id, { version: 1 }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found', message: 'Memory not found' });
    }
    expect((await versions(bob.key, missing)).json()).toEqual({ error: 'not_found', message: 'Memory not found' });
    expect((await versions(alice.key, 'not-an-id')).statusCode).toBe(404);
    // Alice's memory was not touched.
    expect((await versions(alice.key, m.memory_id)).json().total).toBe(2);
  });

  it('validates the version number and the restore body', async () => {
    const m = await create(alice.key, { text: 'Validate me' });
    for (const n of ['0', '-1', 'x', '1.5', '9999999999']) {
      const res = await version(alice.key, m.memory_id, n);
      expect(res.statusCode, n).toBe(400);
      expect(res.json().details.version, n).toBeTruthy();
    }
    for (const body of [{}, { version: 0 }, { version: 'one' }, { version: 1.5 }, { version: 1, extra: true }]) {
      const res = await restore(alice.key, m.memory_id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await restore(alice.key, m.memory_id, { version: 1, extra: true })).json().details.extra).toBeTruthy();
    expect((await restore(alice.key, m.memory_id, { version: 5 })).json()).toEqual({
      error: 'not_found',
      message: 'Memory version not found',
    });
  });

  it('a batch create makes version 1 of each memory too (the row itself)', async () => {
    const res = await t.request(alice.key, {
      method: 'POST',
      url: '/api/v1/memories/batch',
      payload: { memories: [{ text: 'Batch one' }, { text: 'Batch two', project_name: 'b' }] },
    });
    expect(res.statusCode).toBe(201);
    for (const m of res.json().memories) {
      const list = (await versions(alice.key, m.memory_id)).json();
      expect(list).toMatchObject({ total: 1, versions: [{ version: 1, current: true, text_preview: m.text }] });
    }
  });

  it('concurrent updates of one memory each keep a version, numbered one after the other', async () => {
    const m = await create(alice.key, { text: 'c0' });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => put(alice.key, m.memory_id, { text: `c${i + 1}` })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    // Retention is 3 here: the current version 7 and the three before it, no gaps, no duplicates.
    const list = (await versions(alice.key, m.memory_id)).json();
    expect(list.versions.map((v: { version: number }) => v.version)).toEqual([7, 6, 5, 4]);
    const texts = new Set(
      await Promise.all(
        [4, 5, 6, 7].map(async (n) => (await version(alice.key, m.memory_id, n)).json().text as string),
      ),
    );
    expect(texts.size).toBe(4);
  });

  it('deleting a memory deletes its history', async () => {
    const m = await create(alice.key, { text: 'To be deleted' });
    await put(alice.key, m.memory_id, { text: 'To be deleted soon' });
    await t.request(alice.key, { method: 'DELETE', url: `/api/v1/memories/${m.memory_id}` });
    expect((await versions(alice.key, m.memory_id)).statusCode).toBe(404);
    const rows = await t.container.database.db
      .selectFrom('memory_versions')
      .select('version')
      .where('memory_id', '=', m.memory_id)
      .execute();
    expect(rows).toEqual([]);
  });
});
