import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

type User = Awaited<ReturnType<TestApp['user']>>;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const path = (project: string, slug: string, rest = '') =>
  `/api/v1/artifacts/${encodeURIComponent(project)}/${encodeURIComponent(slug)}${rest}`;

describe.each(DIALECTS)('artifacts REST API (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const MAX = 64 * 1024;
  let t: TestApp;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    t = await createTestApp(dialect, { ARTIFACT_MAX_BYTES: String(MAX), ARTIFACT_VERSION_RETENTION: '3' }, { clock });
    alice = await t.user();
    bob = await t.user();
  });
  afterAll(async () => t?.close());

  const create = (key: string, payload: Record<string, unknown>) =>
    t.request(key, { method: 'POST', url: '/api/v1/artifacts', payload });
  const get = (key: string, project: string, slug: string, rest = '') =>
    t.request(key, { method: 'GET', url: path(project, slug, rest) });
  const put = (key: string, project: string, slug: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.request(key, { method: 'PUT', url: path(project, slug), payload: payload as object, headers });
  const list = (key: string, query = '') => t.request(key, { method: 'GET', url: `/api/v1/artifacts${query}` });

  describe('create and read', () => {
    it('creates with 201, Location and ETag; reads the full artifact by an encoded project path', async () => {
      const res = await create(alice.key, {
        project: 'acme/backend',
        title: 'API design notes',
        content: '# API\nUse **REST**. Ünïcode ✓',
        labels: ['design', 'design', ' api '],
        metadata: { owner: 'me' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        id: expect.stringMatching(/^art_[0-9A-Z]{26}$/),
        project: 'acme/backend',
        slug: 'api-design-notes',
        title: 'API design notes',
        version: 1,
        message: 'Artifact created successfully',
      });
      expect(res.headers.location).toBe('/api/v1/artifacts/acme%2Fbackend/api-design-notes');
      expect(res.headers.etag).toBe('"1"');

      const read = await t.request(alice.key, { method: 'GET', url: res.headers.location as string });
      expect(read.statusCode).toBe(200);
      expect(read.headers.etag).toBe('"1"');
      const content = '# API\nUse **REST**. Ünïcode ✓';
      expect(read.json()).toEqual({
        id: res.json().id,
        project: 'acme/backend',
        slug: 'api-design-notes',
        title: 'API design notes',
        description: '',
        content,
        content_type: 'text/markdown',
        labels: ['design', 'api'],
        metadata: { owner: 'me' },
        size_bytes: Buffer.byteLength(content),
        sha256: sha(content),
        version: 1,
        created_at: '2026-11-21T10:00:00.000Z',
        updated_at: '2026-11-21T10:00:00.000Z',
      });
    });

    it('serves the raw content with its own content type, inert', async () => {
      await create(alice.key, {
        project: 'web',
        slug: 'page',
        title: 'Page',
        content: '<script>alert(1)</script>',
        content_type: 'text/html',
      });
      const raw = await get(alice.key, 'web', 'page', '/raw');
      expect(raw.statusCode).toBe(200);
      expect(raw.body).toBe('<script>alert(1)</script>');
      expect(raw.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(raw.headers['x-content-type-options']).toBe('nosniff');
      expect(raw.headers['content-security-policy']).toMatch(/sandbox/);
      const json = await create(alice.key, {
        project: 'web',
        slug: 'data',
        title: 'Data',
        content: '{"a":1}',
        content_type: 'application/json',
      });
      expect(json.statusCode).toBe(201);
      expect((await get(alice.key, 'web', 'data', '/raw')).body).toBe('{"a":1}');
    });

    it('generates unique slugs per project, refuses a taken slug with 409, allows it in another project', async () => {
      const a = (await create(alice.key, { project: 'p1', title: 'Same Title', content: 'a' })).json();
      const b = (await create(alice.key, { project: 'p1', title: 'Same title!', content: 'b' })).json();
      const c = (await create(alice.key, { project: 'p2', title: 'Same title', content: 'c' })).json();
      expect([a.slug, b.slug, c.slug]).toEqual(['same-title', 'same-title-2', 'same-title']);
      const taken = await create(alice.key, { project: 'p1', title: 'x', content: 'x', slug: 'same-title' });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().error).toBe('conflict');
      expect((await create(bob.key, { project: 'p1', title: 'x', content: 'x', slug: 'same-title' })).statusCode).toBe(
        201,
      );
    });

    it('validates input with a detail per field', async () => {
      const res = await create(alice.key, {
        project: 'bad//project',
        title: '',
        content: 5,
        content_type: 'not a mime',
        description: 'd'.repeat(501),
        labels: Array.from({ length: 11 }, (_, i) => `l${i}`),
        slug: 'Bad Slug',
        version: 3,
      });
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().details).sort()).toEqual(
        ['content', 'content_type', 'description', 'labels', 'project', 'slug', 'title', 'version'].sort(),
      );
      const missing = await create(alice.key, {});
      expect(Object.keys(missing.json().details).sort()).toEqual(['content', 'project', 'title']);
    });

    it('accepts content up to the limit and answers 413 over it', async () => {
      const atLimit = 'x'.repeat(MAX);
      const ok = await create(alice.key, { project: 'big', slug: 'at-limit', title: 'At limit', content: atLimit });
      expect(ok.statusCode).toBe(201);
      expect((await get(alice.key, 'big', 'at-limit')).json().size_bytes).toBe(MAX);
      // Multi-byte characters count in bytes: 1 over the limit.
      const over = await create(alice.key, {
        project: 'big',
        slug: 'over',
        title: 'Over',
        content: `${'x'.repeat(MAX - 1)}é`,
      });
      expect(over.statusCode).toBe(413);
      expect(over.json()).toMatchObject({ error: 'payload_too_large' });
      const overUpdate = await put(alice.key, 'big', 'at-limit', { content: `${atLimit}y` });
      expect(overUpdate.statusCode).toBe(413);
      // A body far beyond any limit is refused by the parser, still with the JSON error.
      const huge = await create(alice.key, { project: 'big', title: 'Huge', content: 'x'.repeat(MAX * 4) });
      expect(huge.statusCode).toBe(413);
      expect(huge.json().error).toBe('payload_too_large');
    });
  });

  describe('update, versions and If-Match', () => {
    it('bumps the version only when content changes and keeps previous contents as versions', async () => {
      await create(alice.key, { project: 'docs', slug: 'spec', title: 'Spec', content: 'v1 text' });
      clock.advance(1000);
      const titleOnly = await put(alice.key, 'docs', 'spec', { title: 'Spec (renamed)', labels: ['x'] });
      expect(titleOnly.statusCode).toBe(200);
      expect(titleOnly.json()).toMatchObject({
        version: 1,
        title: 'Spec (renamed)',
        message: 'Artifact updated successfully',
      });
      const same = await put(alice.key, 'docs', 'spec', { content: 'v1 text' });
      expect(same.json().version).toBe(1);

      clock.advance(1000);
      const v2 = await put(alice.key, 'docs', 'spec', { content: 'v2 text', content_type: 'text/plain' });
      expect(v2.json().version).toBe(2);
      expect(v2.headers.etag).toBe('"2"');
      const read = (await get(alice.key, 'docs', 'spec')).json();
      expect(read).toMatchObject({
        content: 'v2 text',
        content_type: 'text/plain',
        size_bytes: 7,
        sha256: sha('v2 text'),
        version: 2,
        title: 'Spec (renamed)',
        labels: ['x'],
        updated_at: '2026-11-21T10:00:02.000Z',
      });

      const versions = (await get(alice.key, 'docs', 'spec', '/versions')).json();
      expect(versions).toMatchObject({ total: 2, page: 1, per_page: 20 });
      expect(versions.versions).toEqual([
        {
          version: 2,
          size_bytes: 7,
          sha256: sha('v2 text'),
          content_type: 'text/plain',
          created_at: '2026-11-21T10:00:02.000Z',
          current: true,
        },
        {
          version: 1,
          size_bytes: 7,
          sha256: sha('v1 text'),
          content_type: 'text/markdown',
          created_at: '2026-11-21T10:00:00.000Z',
          current: false,
        },
      ]);
      const one = (await get(alice.key, 'docs', 'spec', '/versions/1')).json();
      expect(one).toMatchObject({ version: 1, content: 'v1 text', sha256: sha('v1 text'), current: false });
      expect((await get(alice.key, 'docs', 'spec', '/versions/2')).json()).toMatchObject({
        content: 'v2 text',
        current: true,
      });
      expect((await get(alice.key, 'docs', 'spec', '/versions/9')).statusCode).toBe(404);
      expect((await get(alice.key, 'docs', 'spec', '/versions/0')).statusCode).toBe(400);
      expect((await get(alice.key, 'docs', 'spec', '/versions/x')).statusCode).toBe(400);
    });

    it('keeps only the configured number of previous versions, and paginates them', async () => {
      await create(alice.key, { project: 'docs', slug: 'busy', title: 'Busy', content: 'c1' });
      for (let i = 2; i <= 6; i++)
        expect((await put(alice.key, 'docs', 'busy', { content: `c${i}` })).json().version).toBe(i);
      const all = (await get(alice.key, 'docs', 'busy', '/versions')).json();
      expect(all.versions.map((v: { version: number }) => v.version)).toEqual([6, 5, 4, 3]);
      expect(all.total).toBe(4);
      expect((await get(alice.key, 'docs', 'busy', '/versions/2')).statusCode).toBe(404);
      const page2 = (await get(alice.key, 'docs', 'busy', '/versions?per_page=3&page=2')).json();
      expect(page2.versions.map((v: { version: number }) => v.version)).toEqual([3]);
      const page1 = (await get(alice.key, 'docs', 'busy', '/versions?per_page=3')).json();
      expect(page1.versions.map((v: { version: number }) => v.version)).toEqual([6, 5, 4]);
    });

    it('honours If-Match: a stale version gets 412, the current one, * and weak tags pass', async () => {
      await create(alice.key, { project: 'docs', slug: 'guarded', title: 'Guarded', content: 'one' });
      expect((await put(alice.key, 'docs', 'guarded', { content: 'two' }, { 'if-match': '"1"' })).statusCode).toBe(200);
      const stale = await put(alice.key, 'docs', 'guarded', { content: 'three' }, { 'if-match': '"1"' });
      expect(stale.statusCode).toBe(412);
      expect(stale.json().error).toBe('precondition_failed');
      expect((await get(alice.key, 'docs', 'guarded')).json().content).toBe('two');
      expect((await put(alice.key, 'docs', 'guarded', { content: 'three' }, { 'if-match': 'W/"2"' })).statusCode).toBe(
        200,
      );
      expect(
        (await put(alice.key, 'docs', 'guarded', { content: 'four' }, { 'if-match': '"9", "3"' })).statusCode,
      ).toBe(200);
      expect((await put(alice.key, 'docs', 'guarded', { content: 'five' }, { 'if-match': '*' })).statusCode).toBe(200);
      expect((await put(alice.key, 'docs', 'guarded', { content: 'six' }, { 'if-match': 'garbage' })).statusCode).toBe(
        412,
      );
    });

    it('lets exactly one of two concurrent updates with the same If-Match win', async () => {
      for (let round = 0; round < 5; round++) {
        const slug = `race-${round}`;
        await create(alice.key, { project: 'race', slug, title: 'Race', content: 'base' });
        const [a, b] = await Promise.all([
          put(alice.key, 'race', slug, { content: 'from A' }, { 'if-match': '"1"' }),
          put(alice.key, 'race', slug, { content: 'from B' }, { 'if-match': '"1"' }),
        ]);
        const codes = [a.statusCode, b.statusCode].sort();
        expect(codes).toEqual([200, 412]);
        const winner = a.statusCode === 200 ? 'from A' : 'from B';
        const read = (await get(alice.key, 'race', slug)).json();
        expect(read).toMatchObject({ content: winner, version: 2 });
      }
    });

    it('refuses changing project or slug and read-only fields', async () => {
      await create(alice.key, { project: 'docs', slug: 'fixed', title: 'Fixed', content: 'x' });
      const res = await put(alice.key, 'docs', 'fixed', { project: 'other', slug: 'moved', version: 7, sha256: 'x' });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toMatchObject({
        project: 'The project and slug cannot be changed',
        slug: 'The project and slug cannot be changed',
        version: 'Read-only field',
        sha256: 'Read-only field',
      });
      expect((await put(alice.key, 'docs', 'missing', { title: 'x' })).statusCode).toBe(404);
    });
  });

  describe('list', () => {
    let u: User;
    beforeAll(async () => {
      u = await t.user();
      const specs = [
        { project: 'acme', slug: 'root', title: 'Root overview', content: 'The quick brown fox', labels: ['a'] },
        {
          project: 'acme/backend',
          slug: 'api',
          title: 'API',
          content: 'jumps over the lazy dog',
          labels: ['a', 'b'],
          content_type: 'text/plain',
        },
        {
          project: 'acme/backend/v2',
          slug: 'api-v2',
          title: 'API v2',
          description: 'Fox news',
          content: 'nothing',
          labels: ['b'],
        },
        { project: 'acme-other', slug: 'other', title: 'Other', content: 'brown bears' },
      ];
      for (const spec of specs) {
        clock.advance(1000);
        expect((await create(u.key, spec)).statusCode).toBe(201);
      }
    });
    const slugs = async (q: string) => (await list(u.key, q)).json().artifacts.map((a: { slug: string }) => a.slug);

    it('lists summaries without content, newest first, paginated', async () => {
      const body = (await list(u.key, '?per_page=3')).json();
      expect(body).toMatchObject({ total: 4, page: 1, per_page: 3 });
      expect(body.artifacts.map((a: { slug: string }) => a.slug)).toEqual(['other', 'api-v2', 'api']);
      for (const artifact of body.artifacts) {
        expect(artifact).not.toHaveProperty('content');
        expect(artifact).toHaveProperty('size_bytes');
        expect(artifact).toHaveProperty('sha256');
      }
      expect((await list(u.key, '?page=0')).statusCode).toBe(400);
    });

    it('filters by project with descendants, labels, content type and every search word', async () => {
      expect(await slugs('?project=acme')).toEqual(['api-v2', 'api', 'root']);
      expect(await slugs(`?project=${encodeURIComponent('acme/backend')}`)).toEqual(['api-v2', 'api']);
      expect(await slugs('?label=a')).toEqual(['api', 'root']);
      expect(await slugs('?label=a&label=b')).toEqual(['api']);
      expect(await slugs('?content_type=text/plain')).toEqual(['api']);
      expect(await slugs('?search=fox')).toEqual(['api-v2', 'root']);
      expect(await slugs('?search=brown%20fox')).toEqual(['root']);
      expect(await slugs('?search=DOG')).toEqual(['api']);
      expect(await slugs('?search=overview')).toEqual(['root']);
      // Query syntax is not interpreted: 'OR' is a word like any other, and symbols alone filter nothing.
      expect(await slugs('?search=%22%20OR%20*')).toEqual([]);
      expect(await slugs('?search=%22%20*%20(')).toEqual(['other', 'api-v2', 'api', 'root']);
    });
  });

  describe('delete and isolation', () => {
    it('deletes an artifact with its versions', async () => {
      const { id } = (await create(alice.key, { project: 'tmp', slug: 'gone', title: 'Gone', content: 'a' })).json();
      await put(alice.key, 'tmp', 'gone', { content: 'b' });
      const versionsOf = () =>
        t.container.database.db
          .selectFrom('artifact_versions')
          .select('version')
          .where('artifact_id', '=', id)
          .execute();
      expect(await versionsOf()).toHaveLength(1);
      const res = await t.request(alice.key, { method: 'DELETE', url: path('tmp', 'gone') });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: 'Artifact deleted successfully' });
      expect((await get(alice.key, 'tmp', 'gone')).statusCode).toBe(404);
      expect((await get(alice.key, 'tmp', 'gone', '/versions')).statusCode).toBe(404);
      expect(await versionsOf()).toHaveLength(0);
      expect((await t.request(alice.key, { method: 'DELETE', url: path('tmp', 'gone') })).statusCode).toBe(404);
    });

    it('gives another user 404 on every method and path, and never lists foreign artifacts', async () => {
      await create(alice.key, { project: 'secret/plans', slug: 'plan', title: 'Plan', content: 'zebra plan' });
      for (const rest of ['', '/raw', '/versions', '/versions/1']) {
        expect((await get(bob.key, 'secret/plans', 'plan', rest)).statusCode, rest).toBe(404);
      }
      expect((await put(bob.key, 'secret/plans', 'plan', { content: 'pwned' })).statusCode).toBe(404);
      expect((await t.request(bob.key, { method: 'DELETE', url: path('secret/plans', 'plan') })).statusCode).toBe(404);
      const bobs = (await list(bob.key, '?per_page=100')).json();
      expect(bobs.artifacts.map((a: { project: string }) => a.project)).not.toContain('secret/plans');
      expect((await list(bob.key, '?search=zebra')).json().total).toBe(0);
      expect((await get(alice.key, 'secret/plans', 'plan')).json().content).toBe('zebra plan');
    });

    it('refuses keys without ai_tools or cli', async () => {
      const owner = await t.user();
      const market = await t.key(owner.email, ['marketplace']);
      const res = await list(market.key);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toMatch(/ai_tools or cli/);
    });
  });
});

describe.each(DIALECTS)('artifacts at the default 10 MiB limit (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => t?.close());

  it('stores 10 MiB of content, lists without it, and refuses one byte more with 413', async () => {
    const user = await t.user();
    const limit = 10 * 1024 * 1024;
    const line = 'lorem ipsum dolor sit amet consectetur adipiscing elit\n';
    const content = line.repeat(Math.floor(limit / line.length)).padEnd(limit, 'x');
    const created = await t.request(user.key, {
      method: 'POST',
      url: '/api/v1/artifacts',
      payload: { project: 'big', slug: 'ten', title: 'Ten MiB', content },
    });
    expect(created.statusCode).toBe(201);
    const listed = await t.request(user.key, { method: 'GET', url: '/api/v1/artifacts?project=big' });
    expect(listed.json().artifacts[0]).toMatchObject({ slug: 'ten', size_bytes: limit, sha256: sha(content) });
    expect(listed.body.length).toBeLessThan(10_000);
    const read = await t.request(user.key, { method: 'GET', url: path('big', 'ten', '/raw') });
    expect(read.body.length).toBe(limit);
    const over = await t.request(user.key, {
      method: 'POST',
      url: '/api/v1/artifacts',
      payload: { project: 'big', slug: 'over', title: 'Over', content: `${content}x` },
    });
    expect(over.statusCode).toBe(413);
    expect(over.json().error).toBe('payload_too_large');
  }, 60_000);
});
