import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

type User = Awaited<ReturnType<TestApp['user']>>;

describe.each(DIALECTS)('memories REST API (%s)', (dialect) => {
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
  const get = (key: string, id: string) => t.request(key, { method: 'GET', url: `/api/v1/memories/${id}` });
  const put = (key: string, id: string, payload: unknown) =>
    t.request(key, { method: 'PUT', url: `/api/v1/memories/${id}`, payload: payload as object });
  const list = (key: string, query = '') => t.request(key, { method: 'GET', url: `/api/v1/memories${query}` });
  const texts = async (key: string, query: string) =>
    (await list(key, query)).json().memories.map((m: { text: string }) => m.text);

  describe('create and read', () => {
    it('creates with 201, Location and the full representation', async () => {
      const res = await create(alice.key, {
        text: 'Use strict TypeScript',
        project_name: 'acme/backend',
        metadata: { category: 'coding_standards', priority: 'high', tags: ['ts', 'ts', ' style '], owner: 'me' },
      });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toEqual({
        memory_id: expect.stringMatching(/^mem_[0-9A-Z]{26}$/),
        text: 'Use strict TypeScript',
        project_name: 'acme/backend',
        metadata: { category: 'coding_standards', priority: 'high', tags: ['ts', 'style'], owner: 'me' },
        created_at: '2026-11-21T10:00:00.000Z',
        updated_at: '2026-11-21T10:00:00.000Z',
        last_accessed_at: null,
        expires_at: null,
        pinned: false,
        superseded_by: null,
        message: 'Memory created successfully',
      });
      expect(res.headers.location).toBe(`/api/v1/memories/${body.memory_id}`);
      const read = await get(alice.key, body.memory_id);
      expect(read.statusCode).toBe(200);
      const { message: _m, ...representation } = body;
      expect(read.json()).toEqual({ ...representation, last_accessed_at: clock.now().toISOString() });
    });

    it('creates global memories (no project) with empty metadata', async () => {
      const body = (await create(alice.key, { text: 'Global note' })).json();
      expect(body).toMatchObject({ project_name: null, metadata: {} });
      expect((await create(alice.key, { text: 'Also global', project_name: null })).json().project_name).toBeNull();
    });

    it('validates text, project_name and metadata with a detail per field', async () => {
      const res = await create(alice.key, {
        text: ' ',
        project_name: 'bad//name',
        metadata: {
          priority: 'urgent',
          tags: Array.from({ length: 21 }, (_, i) => `t${i}`),
          category: 'c'.repeat(101),
        },
        extra: true,
      });
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().details).sort()).toEqual(
        ['extra', 'metadata.category', 'metadata.priority', 'metadata.tags', 'project_name', 'text'].sort(),
      );
      for (const project_name of ['/lead', 'trail/', 'sp ace', 'a'.repeat(201), 'ü']) {
        expect((await create(alice.key, { text: 'x', project_name })).statusCode, project_name).toBe(400);
      }
      expect((await create(alice.key, { text: 'x'.repeat(50_001) })).json().details.text).toBeTruthy();
      expect((await create(alice.key, { text: 'x', metadata: [] })).json().details.metadata).toBeTruthy();
      expect(
        (await create(alice.key, { text: 'x', metadata: { tags: [''] } })).json().details['metadata.tags.0'],
      ).toBeTruthy();
      const big = await create(alice.key, { text: 'x', metadata: { blob: 'b'.repeat(17 * 1024) } });
      expect(big.json().details.metadata).toMatch(/16 KiB/);
    });

    it('answers deeply nested metadata with 400, not 500', async () => {
      const depth = 50_000;
      const payload = `{"text":"x","metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const res = await t.request(alice.key, {
        method: 'POST',
        url: '/api/v1/memories',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.metadata).toMatch(/nested/);
    });

    it('is 404 for unknown or malformed ids', async () => {
      for (const id of ['mem_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope', 'prm_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
        const res = await get(alice.key, id);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'not_found', message: 'Memory not found' });
      }
    });
  });

  describe('update', () => {
    it('applies metadata as a JSON Merge Patch and changes only given fields', async () => {
      const { memory_id } = (
        await create(alice.key, {
          text: 'Original',
          project_name: 'p1',
          metadata: { category: 'specs', priority: 'low', tags: ['a'], nested: { keep: 1, drop: 2 }, owner: 'x' },
        })
      ).json();
      clock.advance(1000);
      const res = await put(alice.key, memory_id, {
        metadata: { priority: 'high', owner: null, nested: { drop: null, add: 3 }, tags: ['b', 'c'] },
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        memory_id,
        text: 'Original',
        project_name: 'p1',
        metadata: { category: 'specs', priority: 'high', tags: ['b', 'c'], nested: { keep: 1, add: 3 } },
        message: 'Memory updated successfully',
      });
      expect(body.metadata).not.toHaveProperty('owner');
      expect(body.updated_at).toBe('2026-11-21T10:00:01.000Z');
      expect((await get(alice.key, memory_id)).json().metadata).toEqual(body.metadata);

      // Filters follow the new metadata.
      const ids = async (q: string) =>
        (await list(alice.key, q)).json().memories.map((m: { memory_id: string }) => m.memory_id);
      expect(await ids('?tag=b&tag=c')).toContain(memory_id);
      expect(await ids('?tag=a')).not.toContain(memory_id);
      expect(await ids('?priority=high')).toContain(memory_id);

      const moved = (await put(alice.key, memory_id, { text: 'Changed', project_name: null })).json();
      expect(moved).toMatchObject({ text: 'Changed', project_name: null });
      expect(moved.metadata.priority).toBe('high');
    });

    it('validates the merged metadata and refuses read-only fields', async () => {
      const { memory_id } = (await create(alice.key, { text: 'v' })).json();
      const bad = await put(alice.key, memory_id, { metadata: { priority: 'urgent' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details['metadata.priority']).toBeTruthy();
      const readOnly = await put(alice.key, memory_id, { memory_id: 'x', created_at: 'y', text: '' });
      expect(readOnly.statusCode).toBe(400);
      expect(readOnly.json().details).toMatchObject({ memory_id: 'Read-only field', created_at: 'Read-only field' });
      expect(readOnly.json().details.text).toBeTruthy();
      expect((await put(alice.key, 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV', { text: 'x' })).statusCode).toBe(404);
    });
  });

  describe('delete', () => {
    it('deletes, then the memory is gone from reads, lists and search', async () => {
      const { memory_id } = (await create(alice.key, { text: 'ephemeral zebra' })).json();
      const res = await t.request(alice.key, { method: 'DELETE', url: `/api/v1/memories/${memory_id}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: 'Memory deleted successfully' });
      expect((await get(alice.key, memory_id)).statusCode).toBe(404);
      expect(await texts(alice.key, '?search=zebra')).toEqual([]);
      expect((await t.request(alice.key, { method: 'DELETE', url: `/api/v1/memories/${memory_id}` })).statusCode).toBe(
        404,
      );
    });
  });

  describe('list filters', () => {
    let u: User;
    beforeAll(async () => {
      u = await t.user();
      const specs = [
        { text: 'm-root', project_name: 'acme' },
        { text: 'm-backend', project_name: 'acme/backend', metadata: { category: 'specs', tags: ['api', 'db'] } },
        {
          text: 'm-api',
          project_name: 'acme/backend/api',
          metadata: { category: 'specs', priority: 'high', tags: ['api'] },
        },
        { text: 'm-acmeish', project_name: 'acme-other' },
        { text: 'm-global', metadata: { priority: 'low' } },
      ];
      for (const spec of specs) {
        clock.advance(1000);
        expect((await create(u.key, spec)).statusCode).toBe(201);
      }
    });

    it('lists newest first with pagination', async () => {
      const body = (await list(u.key, '?per_page=2')).json();
      expect(body).toMatchObject({ total: 5, page: 1, per_page: 2 });
      expect(body.memories.map((m: { text: string }) => m.text)).toEqual(['m-global', 'm-acmeish']);
      expect((await list(u.key, '?page=3&per_page=2')).json().memories).toHaveLength(1);
      expect((await list(u.key, '?per_page=101')).statusCode).toBe(400);
    });

    it('filters by project and descendants (not by name prefix), category, priority and every tag', async () => {
      expect(await texts(u.key, '?project_name=acme')).toEqual(['m-api', 'm-backend', 'm-root']);
      expect(await texts(u.key, '?project_name=acme/backend')).toEqual(['m-api', 'm-backend']);
      expect(await texts(u.key, '?category=specs')).toEqual(['m-api', 'm-backend']);
      expect(await texts(u.key, '?priority=high')).toEqual(['m-api']);
      expect(await texts(u.key, '?priority=low')).toEqual(['m-global']);
      expect(await texts(u.key, '?tag=api')).toEqual(['m-api', 'm-backend']);
      expect(await texts(u.key, '?tag=api&tag=db')).toEqual(['m-backend']);
      expect((await list(u.key, '?priority=urgent')).json().details.priority).toBeTruthy();
      expect((await list(u.key, '?project_name=a//b')).json().details.project_name).toBeTruthy();
    });
  });

  describe('duplicates on write', () => {
    it('answers an exact duplicate with 200, the stored memory and deduped: true; dedupe=false creates', async () => {
      const first = await create(alice.key, { text: 'Squash merge feature branches', project_name: 'dup/http' });
      expect(first.statusCode).toBe(201);
      const again = await create(alice.key, {
        text: 'squash  merge feature branches.',
        project_name: 'dup/http',
        metadata: { priority: 'low' },
      });
      expect(again.statusCode).toBe(200);
      expect(again.headers.location).toBe(`/api/v1/memories/${first.json().memory_id}`);
      const { message: _m1, ...stored } = first.json();
      const { message, ...answered } = again.json();
      expect(answered).toEqual({ ...stored, deduped: true });
      expect(message).toMatch(/already exists/);
      const forced = await t.request(alice.key, {
        method: 'POST',
        url: '/api/v1/memories?dedupe=false',
        payload: { text: 'Squash merge feature branches', project_name: 'dup/http' },
      });
      expect(forced.statusCode).toBe(201);
      expect(forced.json().memory_id).not.toBe(first.json().memory_id);
      expect(forced.json()).not.toHaveProperty('possible_duplicates');
      const bad = await t.request(alice.key, {
        method: 'POST',
        url: '/api/v1/memories?dedupe=maybe',
        payload: { text: 'x' },
      });
      expect(bad.statusCode).toBe(400);
      // Another user's identical text is theirs alone: created, not deduped.
      const bobs = await create(bob.key, { text: 'Squash merge feature branches', project_name: 'dup/http' });
      expect(bobs.statusCode).toBe(201);
      expect(bobs.json()).not.toHaveProperty('deduped');
      expect(bobs.json()).not.toHaveProperty('possible_duplicates');
    });

    it('creates a near duplicate with 201 and possible_duplicates', async () => {
      const first = await create(alice.key, {
        text: 'Rotate the API signing keys every ninety days',
        project_name: 'dup/near',
      });
      const near = await create(alice.key, {
        text: 'Rotate the API signing keys every ninety days without exception',
        project_name: 'dup/near',
      });
      expect(near.statusCode).toBe(201);
      expect(near.json().possible_duplicates).toEqual([
        { memory_id: first.json().memory_id, similarity: expect.any(Number) },
      ]);
      expect(near.json()).not.toHaveProperty('deduped');
    });

    it('documents both answers and the dedupe parameter in the OpenAPI document', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
      const post = doc.paths['/api/v1/memories'].post;
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '201']));
      expect(post.parameters.map((p: { name: string }) => p.name)).toContain('dedupe');
      const schema = JSON.stringify(post.responses['201']);
      expect(schema).toContain('possible_duplicates');
      expect(schema).toContain('deduped');
    });
  });

  describe('isolation between users', () => {
    it('gives another user 404 for every method and never lists or finds foreign memories', async () => {
      const { memory_id } = (await create(alice.key, { text: 'alice private quokka', project_name: 'shared' })).json();
      expect((await get(bob.key, memory_id)).statusCode).toBe(404);
      expect((await put(bob.key, memory_id, { text: 'pwned' })).statusCode).toBe(404);
      expect((await t.request(bob.key, { method: 'DELETE', url: `/api/v1/memories/${memory_id}` })).statusCode).toBe(
        404,
      );
      expect(
        (await list(bob.key, '?per_page=100')).json().memories.map((m: { memory_id: string }) => m.memory_id),
      ).not.toContain(memory_id);
      expect((await list(bob.key, '?search=quokka')).json()).toMatchObject({ memories: [], total: 0 });
      expect((await list(bob.key, '?search=&project_name=shared')).json().total).toBe(0);
      expect((await get(alice.key, memory_id)).json().text).toBe('alice private quokka');
    });

    it('refuses keys without ai_tools or cli', async () => {
      const owner = await t.user();
      for (const integrations of [['marketplace'], ['mcp_server']] as const) {
        const key = await t.key(owner.email, [...integrations]);
        const res = await list(key.key);
        expect(res.statusCode).toBe(401);
        expect(res.json().message).toMatch(/ai_tools or cli/);
      }
    });
  });
});
