import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

describe.each(DIALECTS)('prompt lifecycle: versions, render, references, typed variables (%s)', (dialect) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<TestApp['user']>>;
  let bob: Awaited<ReturnType<TestApp['user']>>;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    alice = await t.user();
    bob = await t.user();
  });
  afterAll(async () => t?.close());

  const url = (idOrSlug: string, rest = '') => `/api/v1/prompts/${idOrSlug}${rest}`;
  const create = (payload: Record<string, unknown>, key = alice.key) =>
    t.request(key, { method: 'POST', url: '/api/v1/prompts', payload });
  const get = (idOrSlug: string, key = alice.key) => t.request(key, { method: 'GET', url: url(idOrSlug) });
  const put = (idOrSlug: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.request(alice.key, { method: 'PUT', url: url(idOrSlug), payload, headers });
  const versions = (idOrSlug: string, query = '', key = alice.key) =>
    t.request(key, { method: 'GET', url: url(idOrSlug, `/versions${query}`) });
  const version = (idOrSlug: string, n: number | string, key = alice.key) =>
    t.request(key, { method: 'GET', url: url(idOrSlug, `/versions/${n}`) });
  const restore = (idOrSlug: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.request(alice.key, { method: 'POST', url: url(idOrSlug, '/restore'), payload, headers });
  const render = (idOrSlug: string, payload: Record<string, unknown> = {}, key = alice.key) =>
    t.request(key, { method: 'POST', url: url(idOrSlug, '/render'), payload });
  const referencedBy = (idOrSlug: string, query = '', key = alice.key) =>
    t.request(key, { method: 'GET', url: url(idOrSlug, `/referenced-by${query}`) });
  /** A slug no other test uses. */
  const slug = (name: string) => `${name}-${++seq}`;
  const make = async (payload: Record<string, unknown>) => {
    const res = await create({ title: 'T', content: 'c', ...payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; slug: string; version: number };
  };

  describe('versions', () => {
    it('starts at version 1 and keeps every change of title, description, content or labels', async () => {
      const p = await make({ slug: slug('v'), title: 'One', content: 'first', labels: ['a'] });
      expect(p.version).toBe(1);
      expect((await get(p.id)).headers.etag).toBe('"1"');

      const steps: Array<[Record<string, unknown>, number]> = [
        [{ title: 'Two', commit_message: 'rename' }, 2],
        [{ description: 'now described' }, 3],
        [{ content: 'second' }, 4],
        [{ labels: ['a', 'b'] }, 5],
        [{ status: 'published', available_in_mcp: true }, 5], // not versioned
        [{ title: 'Two', content: 'second', labels: ['a', 'b'] }, 5], // equal values: no new version
      ];
      for (const [payload, expected] of steps) {
        const res = await put(p.slug, payload);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().version, JSON.stringify(payload)).toBe(expected);
        expect(res.headers.etag).toBe(`"${expected}"`);
      }
      const current = (await get(p.slug)).json();
      expect(current).toMatchObject({ version: 5, status: 'published', available_in_mcp: true });

      const listed = (await versions(p.slug)).json();
      expect(listed.total).toBe(5);
      expect(listed.versions.map((v: { version: number }) => v.version)).toEqual([5, 4, 3, 2, 1]);
      expect(listed.versions[3]).toEqual({
        version: 2,
        title: 'Two',
        commit_message: 'rename',
        created_at: expect.stringMatching(/Z$/),
      });
      expect(listed.versions[4].commit_message).toBeNull();

      expect((await version(p.slug, 1)).json()).toEqual({
        version: 1,
        title: 'One',
        description: '',
        content: 'first',
        labels: ['a'],
        variable_schema: {},
        commit_message: null,
        created_at: expect.any(String),
      });
      expect((await version(p.id, 4)).json()).toMatchObject({
        title: 'Two',
        description: 'now described',
        content: 'second',
        labels: ['a'],
      });

      const paged = (await versions(p.slug, '?per_page=2&page=2')).json();
      expect(paged).toMatchObject({ total: 5, page: 2, per_page: 2 });
      expect(paged.versions.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    });

    it('answers 404 for a missing version and 400 for a malformed one', async () => {
      const p = await make({ slug: slug('missing-version') });
      const missing = await version(p.slug, 2);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ error: 'not_found', message: 'Prompt version not found' });
      for (const bad of ['0', 'abc', '-1', '1.5']) {
        const res = await version(p.slug, bad);
        expect(res.statusCode, bad).toBe(400);
        expect(res.json().error).toBe('validation_error');
      }
      expect((await versions(p.slug, '?per_page=0')).statusCode).toBe(400);
      expect((await versions('no-such-prompt')).statusCode).toBe(404);
    });

    it('refuses read-only fields and an over-long commit message', async () => {
      const p = await make({ slug: slug('ro') });
      const res = await put(p.slug, { version: 7, broken_references: [] });
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().details).sort()).toEqual(['broken_references', 'version']);
      expect(res.json().details.version).toMatch(/restore/);
      const long = await put(p.slug, { content: 'x2', commit_message: 'm'.repeat(501) });
      expect(long.statusCode).toBe(400);
      expect(long.json().details.commit_message).toMatch(/500/);
    });

    it('restores version n as a new version equal to it, keeping the history', async () => {
      const p = await make({
        slug: slug('restore'),
        title: 'Original',
        content: 'Hello {{name}}',
        labels: ['x'],
        variable_schema: { name: { description: 'Who' } },
      });
      await put(p.slug, { title: 'Changed', content: 'Bye {{who}}', labels: [], variable_schema: null });
      await put(p.slug, { description: 'd' });

      const res = await restore(p.slug, { version: 1 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ id: p.id, slug: p.slug, version: 4, message: 'Version 1 restored as version 4' });
      const current = (await get(p.slug)).json();
      const v1 = (await version(p.slug, 1)).json();
      for (const field of ['title', 'description', 'content', 'labels', 'variable_schema'] as const) {
        expect(current[field], field).toEqual(v1[field]);
      }
      expect((await version(p.slug, 4)).json().commit_message).toBe('Restored version 1');
      expect((await versions(p.slug)).json().total).toBe(4);

      const withMessage = await restore(p.slug, { version: 2, commit_message: 'back to bye' });
      expect(withMessage.json().version).toBe(5);
      expect((await get(p.slug)).json().content).toBe('Bye {{who}}');
      expect((await version(p.slug, 5)).json().commit_message).toBe('back to bye');
    });

    it('refuses restoring a version that does not exist, and malformed bodies', async () => {
      const p = await make({ slug: slug('restore-bad') });
      const missing = await restore(p.slug, { version: 9 });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().message).toBe('Prompt version not found');
      for (const payload of [{}, { version: 0 }, { version: 'one' }, { version: 1.5 }, { version: 1, extra: true }]) {
        const res = await restore(p.slug, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      }
      expect((await get(p.slug)).json().version).toBe(1);
    });

    it('honours If-Match on update and restore (412 when stale)', async () => {
      const p = await make({ slug: slug('if-match') });
      expect((await put(p.slug, { content: 'v2' }, { 'if-match': '"1"' })).statusCode).toBe(200);
      const stale = await put(p.slug, { content: 'lost?' }, { 'if-match': '"1"' });
      expect(stale.statusCode).toBe(412);
      expect(stale.json()).toEqual({
        error: 'precondition_failed',
        message: 'If-Match does not match the current version "2"',
      });
      expect((await get(p.slug)).json().content).toBe('v2');
      expect((await put(p.slug, { content: 'v3' }, { 'if-match': 'W/"2"' })).json().version).toBe(3);
      expect((await restore(p.slug, { version: 1 }, { 'if-match': '"2"' })).statusCode).toBe(412);
      expect((await restore(p.slug, { version: 1 }, { 'if-match': '"3"' })).json().version).toBe(4);
    });

    it('lets exactly one of two concurrent updates from the same version win (If-Match)', async () => {
      for (let round = 0; round < 5; round++) {
        const p = await make({ slug: slug('race') });
        const results = await Promise.all(
          ['left', 'right'].map((content) => put(p.slug, { content }, { 'if-match': '"1"' })),
        );
        expect(results.map((r) => r.statusCode).sort()).toEqual([200, 412]);
        const winner = results.find((r) => r.statusCode === 200);
        expect(winner?.json().version).toBe(2);
        expect((await versions(p.slug)).json().total).toBe(2);
      }
    });

    it('keeps every concurrent update without If-Match as its own version (none lost)', async () => {
      const p = await make({ slug: slug('no-lost'), content: 'start' });
      const contents = Array.from({ length: 6 }, (_, i) => `edit ${i}`);
      const results = await Promise.all(contents.map((content) => put(p.slug, { content })));
      expect(results.map((r) => r.statusCode)).toEqual(contents.map(() => 200));
      expect(results.map((r) => r.json().version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
      const kept = await Promise.all([2, 3, 4, 5, 6, 7].map(async (n) => (await version(p.slug, n)).json().content));
      expect(kept.sort()).toEqual(contents.sort());
    });

    it('deletes the versions with the prompt', async () => {
      const p = await make({ slug: slug('gone') });
      await put(p.slug, { content: 'v2' });
      expect((await t.request(alice.key, { method: 'DELETE', url: url(p.slug) })).statusCode).toBe(200);
      expect((await versions(p.id)).statusCode).toBe(404);
      const rows = await t.container.database.db
        .selectFrom('prompt_versions')
        .select('version')
        .where('prompt_id', '=', p.id)
        .execute();
      expect(rows).toEqual([]);
    });
  });

  describe('render', () => {
    it('substitutes variables and expands references recursively', async () => {
      const leaf = await make({ slug: slug('leaf'), content: 'Use {{language}}.' });
      const mid = await make({ slug: slug('mid'), content: `Style: @${leaf.slug}` });
      const root = await make({ slug: slug('root'), content: `Review {{pr}}. @${mid.slug}` });
      const res = await render(root.slug, { variables: { pr: '#42', language: 'Go' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        content: 'Review #42. Style: Use Go.',
        variables_used: ['pr', 'language'],
        variables_missing: [],
        references_resolved: [`@${mid.slug}`, `@${leaf.slug}`],
      });
      const unresolved = await render(root.id, { variables: { pr: '#1' }, resolve: false });
      expect(unresolved.json()).toEqual({
        content: `Review #1. @${mid.slug}`,
        variables_used: ['pr'],
        variables_missing: [],
        references_resolved: [],
      });
    });

    it('is strict by default: missing and unknown variables are a 400 naming each', async () => {
      const p = await make({ slug: slug('strict'), content: 'Hi {{name}} from {{place}}' });
      const res = await render(p.slug, { variables: { name: 'Ann', colour: 'red' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'validation_error',
        message: 'Variables: missing place; unknown colour',
        details: {
          'variables.place': 'Required variable without a value',
          'variables.colour': 'Not a variable of this prompt',
        },
      });
    });

    it('leaves missing variables as written when not strict, and takes numbers and booleans as text', async () => {
      const p = await make({ slug: slug('lenient'), content: 'n={{n}} ok={{ok}} rest={{ rest }}' });
      const res = await render(p.slug, { variables: { n: 3, ok: true, extra: 'ignored' }, strict: false });
      expect(res.json()).toEqual({
        content: 'n=3 ok=true rest={{ rest }}',
        variables_used: ['n', 'ok'],
        variables_missing: ['rest'],
        references_resolved: [],
      });
    });

    it('reports a reference cycle, naming the chain', async () => {
      const a = slug('cycle-a');
      const b = slug('cycle-b');
      await make({ slug: a, content: `A @${b}` });
      await make({ slug: b, content: `B @${a}` });
      const res = await render(a);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'validation_error',
        message: `References form a cycle: @${a} → @${b} → @${a}`,
        details: { references: `References form a cycle: @${a} → @${b} → @${a}` },
      });
      const self = await make({ slug: slug('self'), content: 'me again: @placeholder' });
      await put(self.slug, { content: `me again: @${self.slug}` });
      expect((await render(self.slug)).json().message).toBe(`References form a cycle: @${self.slug} → @${self.slug}`);
    });

    it('expands exactly 5 levels and refuses a sixth, naming the chain', async () => {
      const names = Array.from({ length: 7 }, (_, i) => slug(`depth${i}`));
      for (let i = names.length - 1; i >= 0; i--) {
        const next = names[i + 1];
        await make({ slug: names[i], content: next ? `${i} @${next}` : 'bottom' });
      }
      const fine = await render(names[1] as string);
      expect(fine.statusCode, fine.body).toBe(200);
      expect(fine.json().content).toBe('1 2 3 4 5 bottom');
      const deep = await render(names[0] as string);
      expect(deep.statusCode).toBe(400);
      expect(deep.json().message).toBe(
        `References are nested more than 5 levels deep: ${names.map((n) => `@${n}`).join(' → ')}`,
      );
    });

    it('reports a deleted target as missing, naming the chain', async () => {
      const target = await make({ slug: slug('target') });
      const via = await make({ slug: slug('via'), content: `via @${target.slug}` });
      const top = await make({ slug: slug('top'), content: `top @${via.slug}` });
      expect((await render(top.slug)).statusCode).toBe(200);
      await t.request(alice.key, { method: 'DELETE', url: url(target.slug) });
      const res = await render(top.slug);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        `Reference to a prompt that does not exist: @${top.slug} → @${via.slug} → @${target.slug}`,
      );
    });

    it('applies the typed-variable schema: defaults, optional variables, enums', async () => {
      const shared = await make({
        slug: slug('shared'),
        content: 'Sign as {{signature}}.',
        variable_schema: { signature: { default: 'The team' } },
      });
      const p = await make({
        slug: slug('typed'),
        content: `Write a {{tone}} note about {{topic}}{{ps}}. @${shared.slug}`,
        variable_schema: {
          tone: { enum: ['formal', 'casual'], default: 'formal' },
          topic: { description: 'The subject' },
          ps: { required: false },
        },
      });
      const res = await render(p.slug, { variables: { topic: 'releases' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        content: 'Write a formal note about releases. Sign as The team.',
        variables_used: ['tone', 'topic', 'ps', 'signature'],
        variables_missing: [],
      });
      const casual = await render(p.slug, { variables: { topic: 'x', tone: 'casual', signature: 'Ann', ps: '!' } });
      expect(casual.json().content).toBe('Write a casual note about x!. Sign as Ann.');

      for (const strict of [true, false]) {
        const bad = await render(p.slug, { variables: { topic: 'x', tone: 'angry' }, strict });
        expect(bad.statusCode).toBe(400);
        expect(bad.json().details).toEqual({ 'variables.tone': 'Must be one of: formal, casual' });
      }
      const missing = await render(p.slug, { variables: {} });
      expect(missing.json().details).toEqual({ 'variables.topic': 'Required variable without a value' });
    });

    it('refuses malformed render bodies', async () => {
      const p = await make({ slug: slug('render-bad') });
      for (const payload of [
        { variables: 'x' },
        { variables: { a: { nested: 1 } } },
        { strict: 'yes' },
        { other: 1 },
      ]) {
        const res = await render(p.slug, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error).toBe('validation_error');
      }
    });

    it('lets a marketplace-only key render published prompts but not drafts', async () => {
      const market = await t.key(alice.email, ['marketplace']);
      const published = await make({ slug: slug('pub'), content: 'hi {{x}}', status: 'published' });
      const draft = await make({ slug: slug('draft'), content: 'secret' });
      const ok = await render(published.slug, { variables: { x: '1' } }, market.key);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().content).toBe('hi 1');
      expect((await render(draft.slug, {}, market.key)).statusCode).toBe(404);
      // Writing stays closed to it.
      expect((await restore(published.slug, { version: 1 }, {})).statusCode).toBe(200);
      const write = await t.request(market.key, {
        method: 'POST',
        url: url(published.slug, '/restore'),
        payload: { version: 1 },
      });
      expect(write.statusCode).toBe(401);
      expect(write.json().message).toBe('This API key lacks the integration this endpoint needs: ai_tools or cli');
    });
  });

  describe('render budget', () => {
    /** Six small prompts, each referencing the next `references` times: references⁵ plain expansions. */
    const amplifier = async (references: number) => {
      const base = slug('amp');
      for (let i = 5; i >= 0; i--) {
        const content = i === 5 ? 'leaf' : Array.from({ length: references }, () => `@${base}-${i + 1}`).join(' ');
        await make({ slug: `${base}-${i}`, content, status: 'published', available_in_mcp: true });
      }
      return base;
    };

    it('refuses the 6 × 40 amplification with a 400 naming the chain that overflowed', async () => {
      const base = await amplifier(40);
      for (const payload of [{}, { strict: false }]) {
        const res = await render(`${base}-0`, payload);
        expect(res.statusCode, res.body).toBe(400);
        const body = res.json();
        expect(body.error).toBe('validation_error');
        expect(body.message).toMatch(
          new RegExp(
            `^The rendered prompt exceeds the limit of 1,000,000 characters while expanding @${base}-0 → @${base}-1`,
          ),
        );
        expect(body.details).toEqual({ references: body.message });
      }
      // Without resolving references there is nothing to amplify.
      const plain = await render(`${base}-0`, { resolve: false });
      expect(plain.statusCode).toBe(200);
      expect(plain.json().content).toBe(Array.from({ length: 40 }, () => `@${base}-1`).join(' '));
    });

    it('renders what fits in the budget (a million characters) in full', async () => {
      // 12⁵ leaves of 4 characters plus separators: about 1.2 million characters is too much, 11 fits.
      const base = await amplifier(11);
      const res = await render(`${base}-0`);
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      expect(res.json().content.length).toBe(11 ** 5 * 4 + (11 ** 5 - 1));
      expect(res.json().references_resolved).toEqual([1, 2, 3, 4, 5].map((i) => `@${base}-${i}`));
    });

    it('refuses a value that would amplify through many placeholders, naming the variable', async () => {
      const p = await make({ slug: slug('many-vars'), content: '{{v}} '.repeat(15_000) });
      const res = await render(p.slug, { variables: { v: 'x'.repeat(100) } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'validation_error',
        message: 'The rendered prompt exceeds the limit of 1,000,000 characters when {{v}} is filled in',
        details: {
          'variables.v': 'The rendered prompt exceeds the limit of 1,000,000 characters when {{v}} is filled in',
        },
      });
      const fits = await render(p.slug, { variables: { v: 'x'.repeat(10) } });
      expect(fits.statusCode).toBe(200);
      expect(fits.json().content.length).toBe(15_000 * 11);
    });
  });

  describe('a marketplace-only key', () => {
    it('never gets a draft expanded into a published prompt: the draft is rendered as missing', async () => {
      const market = await t.key(alice.email, ['marketplace']);
      const draft = await make({ slug: slug('secret-draft'), content: 'the draft text' });
      const shared = await make({ slug: slug('shared'), content: 'shared text', status: 'published' });
      const gone = slug('gone');
      const direct = await make({ slug: slug('pub-direct'), content: `A @${draft.slug}`, status: 'published' });
      const nested = await make({ slug: slug('pub-nested'), content: `B @${shared.slug}`, status: 'published' });
      await put(shared.slug, { content: `shared text @${draft.slug}` });
      const missing = await make({ slug: slug('pub-missing'), content: `A @${gone}`, status: 'published' });

      // The owner's own keys see the draft.
      expect((await render(direct.slug)).json().content).toBe('A the draft text');
      expect((await render(nested.slug)).json().content).toBe('B shared text the draft text');

      const asMarket = await render(direct.slug, {}, market.key);
      expect(asMarket.statusCode).toBe(400);
      expect(asMarket.json().message).toBe(
        `Reference to a prompt that does not exist: @${direct.slug} → @${draft.slug}`,
      );
      const nestedAsMarket = await render(nested.slug, {}, market.key);
      expect(nestedAsMarket.json().message).toBe(
        `Reference to a prompt that does not exist: @${nested.slug} → @${shared.slug} → @${draft.slug}`,
      );
      expect(nestedAsMarket.body).not.toContain('the draft text');
      // Exactly the answer for a prompt that does not exist.
      const missingAsMarket = (await render(missing.slug, {}, market.key)).json();
      const directBody = asMarket.json();
      expect(Object.keys(directBody).sort()).toEqual(Object.keys(missingAsMarket).sort());
      expect(directBody.message.replace(`@${direct.slug} → @${draft.slug}`, '')).toBe(
        missingAsMarket.message.replace(`@${missing.slug} → @${gone}`, ''),
      );
    });

    it('sees a draft target in broken_references exactly as a missing one', async () => {
      const market = await t.key(alice.email, ['marketplace']);
      const draft = await make({ slug: slug('hidden-draft') });
      const published = await make({ slug: slug('visible'), status: 'published' });
      const gone = slug('nothing');
      const p = await make({
        slug: slug('refs-market'),
        content: `@${draft.slug} @${published.slug} @${gone}`,
        status: 'published',
      });
      expect((await get(p.slug)).json().broken_references).toEqual([`@${gone}`]);
      expect((await get(p.slug, market.key)).json().broken_references).toEqual([`@${draft.slug}`, `@${gone}`]);
    });
  });

  describe('reference graph', () => {
    it('lists broken references on the single read as targets come and go', async () => {
      const later = slug('later');
      const p = await make({ slug: slug('refs'), content: `see @${later} and @also-missing-${seq}` });
      expect((await get(p.slug)).json().broken_references).toEqual([`@${later}`, `@also-missing-${seq}`]);
      await make({ slug: later });
      expect((await get(p.slug)).json().broken_references).toEqual([`@also-missing-${seq}`]);
      await t.request(alice.key, { method: 'DELETE', url: url(later) });
      expect((await get(p.slug)).json().broken_references).toEqual([`@${later}`, `@also-missing-${seq}`]);
    });

    it('lists the prompts that reference one, following edits and deletions', async () => {
      const target = await make({ slug: slug('popular') });
      const a = await make({ slug: slug('ref-a'), title: 'A', content: `uses @${target.slug}` });
      const b = await make({ slug: slug('ref-b'), title: 'B', content: `also @${target.slug} twice @${target.slug}` });
      await make({ slug: slug('unrelated'), content: `mail x@${target.slug}.com` });
      expect((await create({ title: 'Bob', slug: slug('bobs'), content: `@${target.slug}` }, bob.key)).statusCode).toBe(
        201,
      );

      const listed = (await referencedBy(target.slug)).json();
      expect(listed.total).toBe(2);
      expect(listed.prompts.map((p: { slug: string }) => p.slug)).toEqual([b.slug, a.slug]);
      expect(Object.keys(listed.prompts[0]).sort()).toEqual(
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
      expect(
        (await referencedBy(target.id, '?per_page=1&page=2')).json().prompts.map((p: { slug: string }) => p.slug),
      ).toEqual([a.slug]);

      await put(a.slug, { content: 'no longer' });
      expect((await referencedBy(target.slug)).json().prompts.map((p: { slug: string }) => p.slug)).toEqual([b.slug]);
      await t.request(alice.key, { method: 'DELETE', url: url(b.slug) });
      expect((await referencedBy(target.slug)).json()).toMatchObject({ prompts: [], total: 0 });
    });
  });

  describe('typed variables', () => {
    it('stores the schema and returns it on the single read and in versions', async () => {
      const schema = {
        lang: { description: 'Language', enum: ['go', 'ts'], default: 'ts' },
        name: { required: false },
      };
      const p = await make({ slug: slug('schema'), content: '{{lang}} {{name}}', variable_schema: schema });
      expect((await get(p.slug)).json().variable_schema).toEqual(schema);
      expect((await version(p.slug, 1)).json().variable_schema).toEqual(schema);
      const changed = await put(p.slug, { variable_schema: { lang: { description: 'Language' } } });
      expect(changed.json().version).toBe(2);
      const same = await put(p.slug, { variable_schema: { lang: { description: 'Language' } } });
      expect(same.json().version).toBe(2);
      expect((await put(p.slug, { variable_schema: null })).json().version).toBe(3);
      expect((await get(p.slug)).json().variable_schema).toEqual({});
    });

    it("reads the schema back in one order on every database: the content's, then description, required, default, enum", async () => {
      const p = await make({
        slug: slug('order'),
        content: '{{zeta}} then {{alpha}} then {{mid_name}}',
        variable_schema: {
          mid_name: { enum: ['x', 'y'], default: 'x', description: 'M' },
          alpha: {},
          zeta: { required: false },
        },
      });
      const expected =
        '{"zeta":{"required":false},"alpha":{},"mid_name":{"description":"M","default":"x","enum":["x","y"]}}';
      expect(JSON.stringify((await get(p.slug)).json().variable_schema)).toBe(expected);
      expect(JSON.stringify((await version(p.slug, 1)).json().variable_schema)).toBe(expected);
    });

    it('refuses schema entries for variables the content does not use', async () => {
      const res = await create({ title: 'T', content: 'only {{a}}', variable_schema: { a: {}, b: {}, c: {} } });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual({ variable_schema: 'Describes variables the content does not use: b, c' });

      const p = await make({ slug: slug('drop'), content: 'uses {{a}}', variable_schema: { a: { description: 'x' } } });
      const dropped = await put(p.slug, { content: 'no variables now' });
      expect(dropped.statusCode).toBe(400);
      expect(dropped.json().details.variable_schema).toMatch(/does not use: a/);
      expect((await get(p.slug)).json()).toMatchObject({ content: 'uses {{a}}', version: 1 });
      // Content and schema changed together are fine.
      expect((await put(p.slug, { content: 'no variables now', variable_schema: {} })).json().version).toBe(2);
    });

    it('validates each entry', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ a: { default: 'z', enum: ['x', 'y'] } }, /default must be one of the enum/],
        [{ a: { enum: [] } }, /at least one/],
        [{ a: { enum: ['x', 'x'] } }, /distinct/],
        [{ a: { required: 'yes' } }, /boolean/i],
        [{ a: { colour: 'red' } }, /colour/],
        [{ 'bad-name': {} }, /Variable names/],
        [{ a: 'text' }, /object/i],
      ];
      for (const [variable_schema, message] of cases) {
        const res = await create({ title: 'T', content: '{{a}}', variable_schema });
        expect(res.statusCode, JSON.stringify(variable_schema)).toBe(400);
        expect(JSON.stringify(res.json().details), JSON.stringify(variable_schema)).toMatch(message);
      }
    });
  });

  it('lists whole prompts with full=true (one request to sync them all), filters unchanged', async () => {
    const user = await t.user();
    const schema = { who: { description: 'Name' } };
    for (const [i, status] of (['draft', 'published', 'published'] as const).entries()) {
      const res = await create(
        {
          title: `Full ${i}`,
          slug: `full-${i}`,
          content: `Hi {{who}} @full-${i + 1}`,
          status,
          variable_schema: schema,
        },
        user.key,
      );
      expect(res.statusCode).toBe(201);
    }
    await t.request(user.key, { method: 'PUT', url: url('full-0'), payload: { content: 'Bye {{who}}' } });
    const res = await t.request(user.key, {
      method: 'GET',
      url: '/api/v1/prompts?full=true&status=published&per_page=1',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(2);
    expect(body.prompts[0]).toEqual({
      ...(await get('full-2', user.key)).json(),
      broken_references: undefined,
    });
    const all = (await t.request(user.key, { method: 'GET', url: '/api/v1/prompts?full=1' })).json();
    expect(all.prompts.map((p: { slug: string; version: number }) => [p.slug, p.version])).toEqual([
      ['full-0', 2],
      ['full-2', 1],
      ['full-1', 1],
    ]);
    const summaries = (await t.request(user.key, { method: 'GET', url: '/api/v1/prompts' })).json();
    expect(summaries.prompts[0].content).toBeUndefined();
    expect((await t.request(user.key, { method: 'GET', url: '/api/v1/prompts?full=yes' })).statusCode).toBe(400);
  });

  it("answers 404 for another user's prompt on every lifecycle route", async () => {
    const p = await make({ slug: slug('private'), content: 'secret {{x}}' });
    await put(p.slug, { content: 'secret 2 {{x}}' });
    const bobs = [
      await versions(p.slug, '', bob.key),
      await version(p.slug, 1, bob.key),
      await render(p.slug, { variables: { x: '1' } }, bob.key),
      await referencedBy(p.slug, '', bob.key),
      await t.request(bob.key, { method: 'POST', url: url(p.id, '/restore'), payload: { version: 1 } }),
    ];
    for (const res of bobs) {
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('secret');
    }
    expect((await get(p.slug)).json().version).toBe(2);
  });
});

describe.each(DIALECTS)('render budget set by RENDER_MAX_CHARS (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { RENDER_MAX_CHARS: '100000' });
  });
  afterAll(async () => t?.close());

  it('renders exactly up to the configured size and refuses one character more', async () => {
    const user = await t.user();
    const create = (payload: Record<string, unknown>) =>
      t.request(user.key, { method: 'POST', url: '/api/v1/prompts', payload: { title: 'T', ...payload } });
    const render = (slug: string, variables: Record<string, string> = {}) =>
      t.request(user.key, { method: 'POST', url: `/api/v1/prompts/${slug}/render`, payload: { variables } });
    expect((await create({ slug: 'half', content: 'x'.repeat(49_999) })).statusCode).toBe(201);
    expect((await create({ slug: 'whole', content: '@half  @half' })).statusCode).toBe(201);
    expect((await create({ slug: 'over', content: '@half   @half' })).statusCode).toBe(201);
    expect((await create({ slug: 'filled', content: `${'x'.repeat(99_990)}{{v}}` })).statusCode).toBe(201);

    const whole = await render('whole');
    expect(whole.statusCode).toBe(200);
    expect(whole.json().content.length).toBe(100_000);
    const over = await render('over');
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toBe(
      'The rendered prompt exceeds the limit of 100,000 characters while expanding @over → @half',
    );
    expect((await render('filled', { v: '0123456789' })).statusCode).toBe(200);
    const filled = await render('filled', { v: '0123456789a' });
    expect(filled.statusCode).toBe(400);
    expect(filled.json().details).toEqual({
      'variables.v': 'The rendered prompt exceeds the limit of 100,000 characters when {{v}} is filled in',
    });
  });
});
