import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

describe.each(DIALECTS)('prompts REST API (%s)', (dialect) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<TestApp['user']>>;
  let bob: Awaited<ReturnType<TestApp['user']>>;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    alice = await t.user();
    bob = await t.user();
  });
  afterAll(async () => t?.close());

  const create = (key: string, payload: Record<string, unknown>) =>
    t.request(key, { method: 'POST', url: '/api/v1/prompts', payload });
  const get = (key: string, idOrSlug: string) => t.request(key, { method: 'GET', url: `/api/v1/prompts/${idOrSlug}` });
  const list = (key: string, query = '') => t.request(key, { method: 'GET', url: `/api/v1/prompts${query}` });
  const put = (key: string, idOrSlug: string, payload: unknown) =>
    t.request(key, { method: 'PUT', url: `/api/v1/prompts/${idOrSlug}`, payload: payload as object });

  describe('create', () => {
    it('returns 201 with Location, id, slug, title and message, and applies defaults', async () => {
      const res = await create(alice.key, { title: 'Summarise a PR', content: 'Summarise {{pr}} for @reviewers' });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toEqual({
        id: expect.stringMatching(/^prm_[0-9A-Z]{26}$/),
        slug: 'summarise-a-pr',
        title: 'Summarise a PR',
        version: 1,
        message: 'Prompt created successfully',
      });
      expect(res.headers.location).toBe(`/api/v1/prompts/${body.id}`);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');

      const full = (await get(alice.key, body.id)).json();
      expect(full).toMatchObject({
        description: '',
        status: 'draft',
        available_in_mcp: false,
        labels: [],
        content: 'Summarise {{pr}} for @reviewers',
        variables: ['pr'],
        references: ['@reviewers'],
      });
      expect(full.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(full.updated_at).toBe(full.created_at);
    });

    it('generates slugs from titles (accents folded) and keeps them unique per user', async () => {
      const first = (await create(alice.key, { title: 'Crème Brûlée: the recipe!', content: 'x' })).json();
      const second = (await create(alice.key, { title: 'Crème brûlée — the recipe', content: 'y' })).json();
      const third = (await create(alice.key, { title: 'creme brulee the recipe', content: 'z' })).json();
      expect([first.slug, second.slug, third.slug]).toEqual([
        'creme-brulee-the-recipe',
        'creme-brulee-the-recipe-2',
        'creme-brulee-the-recipe-3',
      ]);
      const symbols = (await create(alice.key, { title: '!!! ???', content: 'x' })).json();
      expect(symbols.slug).toMatch(/^prompt(-\d+)?$/);
    });

    it('accepts a supplied slug, refuses a taken one with 409 and a malformed one with 400', async () => {
      expect((await create(alice.key, { title: 'A', content: 'x', slug: 'my-slug' })).json().slug).toBe('my-slug');
      const taken = await create(alice.key, { title: 'B', content: 'x', slug: 'my-slug' });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().error).toBe('conflict');
      for (const slug of ['My-Slug', 'two--hyphens', '-lead', 'trail-', 'sp ace', '', 'a'.repeat(101)]) {
        const res = await create(alice.key, { title: 'C', content: 'x', slug });
        expect(res.statusCode, slug).toBe(400);
        expect(res.json().details.slug, slug).toBeTruthy();
      }
      // Slugs are per user: bob may use alice's.
      expect((await create(bob.key, { title: 'Bob', content: 'x', slug: 'my-slug' })).statusCode).toBe(201);
    });

    it('validates every field and names each bad one in details', async () => {
      const res = await create(alice.key, {
        title: '   ',
        content: '',
        description: 'd'.repeat(201),
        status: 'live',
        available_in_mcp: 'yes',
        labels: Array.from({ length: 11 }, (_, i) => `l${i}`),
        id: 'prm_x',
        extra: 1,
      });
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.error).toBe('validation_error');
      expect(typeof body.message).toBe('string');
      expect(Object.keys(body.details).sort()).toEqual(
        ['available_in_mcp', 'content', 'description', 'extra', 'id', 'labels', 'status', 'title'].sort(),
      );
    });

    it('requires title and content', async () => {
      const res = await create(alice.key, {});
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().details).sort()).toEqual(['content', 'title']);
    });

    it('limits titles to 200, content to 100,000 and labels to 1–50 characters', async () => {
      expect((await create(alice.key, { title: 't'.repeat(200), content: 'c'.repeat(100_000) })).statusCode).toBe(201);
      const res = await create(alice.key, {
        title: 't'.repeat(201),
        content: 'c'.repeat(100_001),
        labels: ['ok', ' ', 'x'.repeat(51)],
      });
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().details).sort()).toEqual(['content', 'labels.1', 'labels.2', 'title']);
    });

    it('trims labels and drops duplicates, keeping order', async () => {
      const { id } = (await create(alice.key, { title: 'L', content: 'x', labels: [' b ', 'a', 'b', 'a'] })).json();
      expect((await get(alice.key, id)).json().labels).toEqual(['b', 'a']);
    });
  });

  describe('read', () => {
    it('reads by id or by slug with content, variables and references', async () => {
      const { id, slug } = (
        await create(alice.key, {
          title: 'Read me',
          content: 'Hi {{ name }}, {{name}} again; {{ not valid }} mail a@b.co see @intro and @outro, @intro',
          labels: ['x'],
        })
      ).json();
      const byId = (await get(alice.key, id)).json();
      const bySlug = (await get(alice.key, slug)).json();
      expect(bySlug).toEqual(byId);
      expect(byId.variables).toEqual(['name']);
      expect(byId.references).toEqual(['@intro', '@outro']);
      expect(byId.broken_references).toEqual(['@intro', '@outro']);
      expect(byId).toMatchObject({ version: 1, variable_schema: {} });
      expect(Object.keys(byId).sort()).toEqual(
        [
          'available_in_mcp',
          'broken_references',
          'content',
          'created_at',
          'description',
          'id',
          'labels',
          'references',
          'slug',
          'status',
          'title',
          'updated_at',
          'variable_schema',
          'variables',
          'version',
        ].sort(),
      );
    });

    it('is 404 for an unknown id or slug', async () => {
      for (const ref of ['no-such-prompt', 'prm_01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
        const res = await get(alice.key, ref);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'not_found', message: 'Prompt not found' });
      }
    });
  });

  describe('list', () => {
    let u: Awaited<ReturnType<TestApp['user']>>;
    beforeAll(async () => {
      u = await t.user();
      const specs = [
        { title: 'Alpha review', content: 'Check the GRAMMAR', labels: ['writing', 'review'], status: 'published' },
        { title: 'Beta', content: 'Refactor code', labels: ['code'], description: 'Grammar of code' },
        { title: 'Gamma', content: 'Ünïcode Straße', labels: ['code', 'review'], status: 'published' },
        { title: 'Delta', content: '100% sure_thing', labels: [] },
      ];
      for (const spec of specs) {
        expect((await create(u.key, spec)).statusCode).toBe(201);
        await new Promise((resolve) => setTimeout(resolve, 3)); // distinct updated_at
      }
    });

    it('lists summaries without content, newest updated first, with total/page/per_page', async () => {
      const body = (await list(u.key)).json();
      expect(body.total).toBe(4);
      expect(body.page).toBe(1);
      expect(body.per_page).toBe(20);
      expect(body.prompts.map((p: { title: string }) => p.title)).toEqual(['Delta', 'Gamma', 'Beta', 'Alpha review']);
      for (const p of body.prompts) {
        expect(p).not.toHaveProperty('content');
        expect(p).not.toHaveProperty('variables');
        expect(p).not.toHaveProperty('references');
        expect(Object.keys(p).sort()).toEqual(
          [
            'available_in_mcp',
            'created_at',
            'description',
            'id',
            'labels',
            'slug',
            'status',
            'title',
            'updated_at',
          ].sort(),
        );
      }
    });

    it('filters by status and by every repeated label', async () => {
      const titles = async (q: string) => (await list(u.key, q)).json().prompts.map((p: { title: string }) => p.title);
      expect(await titles('?status=published')).toEqual(['Gamma', 'Alpha review']);
      expect(await titles('?status=draft')).toEqual(['Delta', 'Beta']);
      expect(await titles('?label=code')).toEqual(['Gamma', 'Beta']);
      expect(await titles('?label=code&label=review')).toEqual(['Gamma']);
      expect(await titles('?label=nothing')).toEqual([]);
      expect((await list(u.key, '?status=other')).json().details.status).toBeTruthy();
    });

    it('searches title, description and content case-insensitively, every term required', async () => {
      const titles = async (q: string) => (await list(u.key, q)).json().prompts.map((p: { title: string }) => p.title);
      expect(await titles('?search=grammar')).toEqual(['Beta', 'Alpha review']);
      expect(await titles('?search=GRAMMAR%20code')).toEqual(['Beta']);
      expect(await titles('?search=review')).toEqual(['Alpha review']);
      expect(await titles('?search=stra%C3%9Fe')).toEqual(['Gamma']);
      expect(await titles('?search=%C3%9CN%C3%8Fcode')).toEqual(['Gamma']);
      // LIKE wildcards are literal.
      expect(await titles('?search=100%25')).toEqual(['Delta']);
      expect(await titles('?search=_')).toEqual(['Delta']);
      expect(await titles('?search=%25')).toEqual(['Delta']);
    });

    it('paginates, returns an empty page past the end with the true total, and validates bounds', async () => {
      const page2 = (await list(u.key, '?per_page=3&page=2')).json();
      expect(page2).toMatchObject({ total: 4, page: 2, per_page: 3 });
      expect(page2.prompts.map((p: { title: string }) => p.title)).toEqual(['Alpha review']);
      const past = (await list(u.key, '?page=9')).json();
      expect(past).toMatchObject({ prompts: [], total: 4, page: 9 });
      expect((await list(u.key, '?per_page=100')).statusCode).toBe(200);
      for (const q of [
        '?page=0',
        '?page=-1',
        '?page=1.5',
        '?page=x',
        '?per_page=0',
        '?per_page=101',
        '?per_page=ten',
      ]) {
        const res = await list(u.key, q);
        expect(res.statusCode, q).toBe(400);
        const param = q.slice(1).split('=')[0] as string;
        expect(Object.keys(res.json().details), q).toEqual([param]);
      }
      // Unknown query parameters are ignored.
      expect((await list(u.key, '?colour=blue')).statusCode).toBe(200);
    });
  });

  describe('update', () => {
    it('changes only the supplied fields and moves updated_at', async () => {
      const { id, slug } = (
        await create(alice.key, { title: 'Old', content: 'Old {{a}}', description: 'desc', labels: ['k'] })
      ).json();
      const before = (await get(alice.key, id)).json();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const res = await put(alice.key, slug, { content: 'New {{b}} @other', status: 'published' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ id, slug, version: 2, message: 'Prompt updated successfully' });
      const after = (await get(alice.key, id)).json();
      expect(after).toMatchObject({
        title: 'Old',
        description: 'desc',
        labels: ['k'],
        content: 'New {{b}} @other',
        status: 'published',
        variables: ['b'],
        references: ['@other'],
        created_at: before.created_at,
      });
      expect(after.updated_at > before.updated_at).toBe(true);

      // Search follows the new text.
      const found = (await list(alice.key, '?search=new')).json().prompts.map((p: { id: string }) => p.id);
      expect(found).toContain(id);
      await put(alice.key, id, { labels: ['z', 'z'], available_in_mcp: true, description: null });
      expect((await get(alice.key, id)).json()).toMatchObject({
        labels: ['z'],
        available_in_mcp: true,
        description: '',
      });
      expect((await list(alice.key, '?label=k')).json().prompts.map((p: { id: string }) => p.id)).not.toContain(id);
      expect((await list(alice.key, '?label=z')).json().prompts.map((p: { id: string }) => p.id)).toContain(id);
    });

    it('accepts an empty body and still moves updated_at', async () => {
      const { id } = (await create(alice.key, { title: 'Touch', content: 'x' })).json();
      const before = (await get(alice.key, id)).json();
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await put(alice.key, id, {})).statusCode).toBe(200);
      expect((await get(alice.key, id)).json().updated_at > before.updated_at).toBe(true);
    });

    it('refuses slug, read-only and unknown fields and invalid values', async () => {
      const { id } = (await create(alice.key, { title: 'Fixed', content: 'x' })).json();
      const res = await put(alice.key, id, {
        slug: 'new-slug',
        created_at: 'x',
        colour: 'red',
        title: '',
        labels: 'a',
      });
      expect(res.statusCode).toBe(400);
      const { details } = res.json();
      expect(details.slug).toBe('The slug cannot be changed');
      expect(details.created_at).toBe('Read-only field');
      expect(details.colour).toBe('Unknown field');
      expect(details.title).toBeTruthy();
      expect(details.labels).toBeTruthy();
      expect((await get(alice.key, id)).json().title).toBe('Fixed');
    });

    it('is 404 for an unknown prompt, and validates before looking', async () => {
      expect((await put(alice.key, 'missing', { title: 'x' })).statusCode).toBe(404);
      expect((await put(alice.key, 'missing', { title: '' })).statusCode).toBe(400);
    });
  });

  describe('delete', () => {
    it('deletes permanently and leaves references from other prompts broken', async () => {
      const target = (await create(alice.key, { title: 'Target', content: 'x', slug: 'target' })).json();
      const referrer = (await create(alice.key, { title: 'Referrer', content: 'uses @target' })).json();
      const res = await t.request(alice.key, { method: 'DELETE', url: `/api/v1/prompts/${target.slug}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: 'Prompt deleted successfully' });
      expect((await get(alice.key, target.id)).statusCode).toBe(404);
      expect((await get(alice.key, referrer.id)).json().references).toEqual(['@target']);
      const again = await t.request(alice.key, { method: 'DELETE', url: `/api/v1/prompts/${target.id}` });
      expect(again.statusCode).toBe(404);
      // The slug is free again.
      expect((await create(alice.key, { title: 'T', content: 'x', slug: 'target' })).statusCode).toBe(201);
    });
  });

  describe('isolation between users', () => {
    it('gives another user 404 for every method, by id and by slug, and never lists foreign prompts', async () => {
      const owned = (
        await create(alice.key, { title: 'Alice secret', content: 'secret', slug: 'alice-secret' })
      ).json();
      for (const ref of [owned.id, owned.slug]) {
        expect((await get(bob.key, ref)).statusCode).toBe(404);
        expect((await put(bob.key, ref, { title: 'pwned' })).statusCode).toBe(404);
        expect((await t.request(bob.key, { method: 'DELETE', url: `/api/v1/prompts/${ref}` })).statusCode).toBe(404);
      }
      const bobs = (await list(bob.key, '?per_page=100&search=secret')).json();
      expect(bobs.total).toBe(0);
      const all = (await list(bob.key, '?per_page=100')).json();
      expect(all.prompts.every((p: { id: string }) => p.id !== owned.id)).toBe(true);
      expect((await get(alice.key, owned.id)).json().title).toBe('Alice secret');
    });
  });

  describe('integration policy', () => {
    it('lets a marketplace-only key read published prompts and nothing else', async () => {
      const owner = await t.user();
      const market = await t.key(owner.email, ['marketplace']);
      const draft = (await create(owner.key, { title: 'Draft one', content: 'x' })).json();
      const pub = (await create(owner.key, { title: 'Public one', content: 'x', status: 'published' })).json();

      const listed = (await list(market.key)).json();
      expect(listed.prompts.map((p: { id: string }) => p.id)).toEqual([pub.id]);
      expect(listed.total).toBe(1);
      expect((await list(market.key, '?status=draft')).json()).toMatchObject({ prompts: [], total: 0 });
      expect((await get(market.key, pub.slug)).statusCode).toBe(200);
      expect((await get(market.key, draft.id)).statusCode).toBe(404);

      const write = await create(market.key, { title: 'No', content: 'x' });
      expect(write.statusCode).toBe(401);
      expect(write.json().error).toBe('unauthorized');
      expect(write.json().message).toMatch(/ai_tools or cli/);
      expect((await put(market.key, pub.id, { title: 'x' })).statusCode).toBe(401);
      expect((await t.request(market.key, { method: 'DELETE', url: `/api/v1/prompts/${pub.id}` })).statusCode).toBe(
        401,
      );
    });

    it('refuses an mcp_server-only key on REST, naming the needed integrations', async () => {
      const owner = await t.user();
      const mcp = await t.key(owner.email, ['mcp_server']);
      const res = await list(mcp.key);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toMatch(/ai_tools or cli or marketplace/);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="cairn"');
    });

    it('accepts a cli-only key for everything', async () => {
      const owner = await t.user({ integrations: ['cli'] });
      const { id } = (await create(owner.key, { title: 'By CLI', content: 'x' })).json();
      expect((await get(owner.key, id)).statusCode).toBe(200);
      expect((await put(owner.key, id, { title: 'y' })).statusCode).toBe(200);
    });
  });
});
