import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROMPT_ENVIRONMENTS } from '../../src/contract/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

describe.each(DIALECTS)('prompt environments over REST (%s)', (dialect) => {
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
  const slug = (name: string) => `${name}-${++seq}`;
  const call = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', path: string, payload?: unknown, key = alice.key) =>
    t.request(key, { method, url: path, ...(payload !== undefined && { payload: payload as object }) });
  const setEnv = (idOrSlug: string, name: string, payload: unknown, key = alice.key) =>
    call('PUT', url(idOrSlug, `/environments/${name}`), payload, key);
  /** A prompt with versions 1 (`one {{x}}`), 2 (`two {{x}}`) and 3 (`three {{x}}`). */
  const threeVersions = async (extra: Record<string, unknown> = {}, key = alice.key) => {
    const s = slug('env');
    const created = await call(
      'POST',
      '/api/v1/prompts',
      { title: 'One', content: 'one {{x}}', slug: s, ...extra },
      key,
    );
    expect(created.statusCode, created.body).toBe(201);
    for (const [title, content] of [
      ['Two', 'two {{x}}'],
      ['Three', 'three {{x}}'],
    ]) {
      const res = await call('PUT', url(s), { title, content }, key);
      expect(res.statusCode, res.body).toBe(200);
    }
    return { slug: s, id: created.json().id as string };
  };

  it('sets, lists, moves and removes pointers; reads and renders serve the pointed version', async () => {
    const p = await threeVersions();
    const set = await setEnv(p.slug, 'production', { version: 1 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ name: 'production', version: 1, marketplace: false });
    expect(set.json().message).toBe("Environment 'production' now points to version 1");
    expect((await setEnv(p.id, 'staging', { version: 2 })).statusCode).toBe(200);

    const list = await call('GET', url(p.slug, '/environments'));
    expect(list.statusCode).toBe(200);
    expect(list.json().total).toBe(2);
    expect(list.json().environments.map((e: { name: string; version: number }) => [e.name, e.version])).toEqual([
      ['production', 1],
      ['staging', 2],
    ]);

    const prod = await call('GET', url(p.slug, '?environment=production'));
    expect(prod.statusCode).toBe(200);
    expect(prod.json()).toMatchObject({ title: 'One', content: 'one {{x}}', version: 1, environment: 'production' });
    expect(prod.headers.etag).toBeUndefined();
    const latest = await call('GET', url(p.slug));
    expect(latest.json()).toMatchObject({ title: 'Three', version: 3 });
    expect(latest.json().environment).toBeUndefined();
    expect(latest.headers.etag).toBe('"3"');

    const rendered = await call('POST', url(p.slug, '/render?environment=staging'), { variables: { x: 'X' } });
    expect(rendered.statusCode, rendered.body).toBe(200);
    expect(rendered.json().content).toBe('two X');

    // Moving the pointer shows on the very next read (the read cache is keyed by environment and stamp).
    expect((await setEnv(p.slug, 'production', { version: 3 })).statusCode).toBe(200);
    expect((await call('GET', url(p.slug, '?environment=production'))).json()).toMatchObject({
      version: 3,
      content: 'three {{x}}',
    });
    expect(
      (await call('POST', url(p.slug, '/render?environment=production'), { variables: { x: 'Y' } })).json().content,
    ).toBe('three Y');

    const removed = await call('DELETE', url(p.slug, '/environments/staging'));
    expect(removed.statusCode).toBe(200);
    expect(removed.json().message).toBe("Environment 'staging' removed");
    expect((await call('GET', url(p.slug, '/environments'))).json().total).toBe(1);
  });

  it('answers an unset pointer with a 404 that names it, and a missing version with a 400', async () => {
    const p = await threeVersions();
    const read = await call('GET', url(p.slug, '?environment=production'));
    expect(read.statusCode).toBe(404);
    expect(read.json()).toEqual({ error: 'not_found', message: `Prompt '${p.slug}' has no environment 'production'` });
    const render = await call('POST', url(p.slug, '/render?environment=production'), {});
    expect(render.statusCode).toBe(404);
    expect(render.json().message).toBe(`Prompt '${p.slug}' has no environment 'production'`);
    const remove = await call('DELETE', url(p.slug, '/environments/production'));
    expect(remove.statusCode).toBe(404);

    const noVersion = await setEnv(p.slug, 'production', { version: 9 });
    expect(noVersion.statusCode).toBe(400);
    expect(noVersion.json()).toMatchObject({
      error: 'validation_error',
      details: { version: `Prompt '${p.slug}' has no version 9` },
    });
    expect((await setEnv('no-such-prompt', 'production', { version: 1 })).statusCode).toBe(404);
  });

  it('validates names (the slug rules), bodies and the count bound', async () => {
    const p = await threeVersions();
    for (const bad of ['Production', 'prod_1', '-x', 'a--b', 'x'.repeat(101)]) {
      const res = await setEnv(p.slug, encodeURIComponent(bad), { version: 1 });
      expect(res.statusCode, bad).toBe(400);
      expect(Object.keys(res.json().details), bad).toContain('name');
    }
    const badQuery = await call('GET', url(p.slug, '?environment=Not%20Valid'));
    expect(badQuery.statusCode).toBe(400);
    expect(Object.keys(badQuery.json().details)).toEqual(['environment']);
    expect((await setEnv(p.slug, 'x', { version: 0 })).statusCode).toBe(400);
    expect((await setEnv(p.slug, 'x', { version: 1, extra: true })).json().details).toHaveProperty('extra');
    expect((await setEnv(p.slug, 'x', {})).statusCode).toBe(400);

    for (let i = 0; i < MAX_PROMPT_ENVIRONMENTS; i++) {
      expect((await setEnv(p.slug, `env-${i}`, { version: 1 })).statusCode).toBe(200);
    }
    const over = await setEnv(p.slug, 'one-too-many', { version: 1 });
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toContain(`at most ${MAX_PROMPT_ENVIRONMENTS} environments`);
    // Moving an existing pointer is not a new one.
    expect((await setEnv(p.slug, 'env-0', { version: 2 })).statusCode).toBe(200);
  });

  it("keeps users apart: another user's prompt and pointers are not found", async () => {
    const p = await threeVersions();
    expect((await setEnv(p.slug, 'production', { version: 2 })).statusCode).toBe(200);
    expect((await call('GET', url(p.slug, '?environment=production'), undefined, bob.key)).statusCode).toBe(404);
    expect((await call('GET', url(p.id, '/environments'), undefined, bob.key)).statusCode).toBe(404);
    expect((await setEnv(p.id, 'production', { version: 1 }, bob.key)).statusCode).toBe(404);
    expect((await call('DELETE', url(p.id, '/environments/production'), undefined, bob.key)).statusCode).toBe(404);
    // Bob's prompt of the same slug has no pointers of Alice's.
    const bobs = await call('POST', '/api/v1/prompts', { title: 'B', content: 'bob', slug: p.slug }, bob.key);
    expect(bobs.statusCode).toBe(201);
    expect((await call('GET', url(p.slug, '/environments'), undefined, bob.key)).json().total).toBe(0);
    expect((await call('GET', url(p.slug, '?environment=production'), undefined, bob.key)).statusCode).toBe(404);
    // And Alice's pointer is unchanged.
    expect((await call('GET', url(p.slug, '?environment=production'))).json().version).toBe(2);
  });

  it('a pointer survives new versions and restores, and goes with its prompt', async () => {
    const p = await threeVersions();
    expect((await setEnv(p.slug, 'production', { version: 2 })).statusCode).toBe(200);
    expect((await call('POST', url(p.slug, '/restore'), { version: 1 })).statusCode).toBe(200);
    expect((await call('GET', url(p.slug, '?environment=production'))).json().version).toBe(2);
    expect((await call('DELETE', url(p.slug))).statusCode).toBe(200);
    expect((await call('GET', url(p.slug, '/environments'))).statusCode).toBe(404);
    // A new prompt of the same slug starts without pointers.
    await call('POST', '/api/v1/prompts', { title: 'New', content: 'new', slug: p.slug });
    expect((await call('GET', url(p.slug, '/environments'))).json().total).toBe(0);
  });

  it('lists through an environment: only prompts that have it, each as the pointed version', async () => {
    const label = slug('lbl');
    const a = await threeVersions({ labels: [label] });
    const b = await threeVersions({ labels: [label] });
    expect((await setEnv(a.slug, 'production', { version: 1 })).statusCode).toBe(200);
    const full = await call('GET', `/api/v1/prompts?label=${label}&environment=production&full=true`);
    expect(full.statusCode, full.body).toBe(200);
    expect(full.json().total).toBe(1);
    expect(full.json().prompts[0]).toMatchObject({ slug: a.slug, title: 'One', content: 'one {{x}}', version: 1 });
    const summaries = await call('GET', `/api/v1/prompts?label=${label}&environment=production`);
    expect(summaries.json().prompts.map((p: { slug: string; title: string }) => [p.slug, p.title])).toEqual([
      [a.slug, 'One'],
    ]);
    expect((await call('GET', `/api/v1/prompts?label=${label}`)).json().total).toBe(2);
    expect(b.slug).not.toBe(a.slug);
  });

  it('marketplace keys see published prompts only, and a marked prompt only through its marked pointer', async () => {
    const market = await t.key(alice.email, ['marketplace']);
    const draft = await threeVersions();
    expect((await setEnv(draft.slug, 'production', { version: 1, marketplace: true })).statusCode).toBe(200);
    expect((await call('GET', url(draft.slug), undefined, market.key)).statusCode).toBe(404);

    const label = slug('market');
    const p = await threeVersions({ status: 'published', labels: [label] });
    // Without a marked pointer: the latest, as before.
    expect((await call('GET', url(p.slug), undefined, market.key)).json().version).toBe(3);
    expect((await setEnv(p.slug, 'staging', { version: 2 })).statusCode).toBe(200);
    expect((await setEnv(p.slug, 'production', { version: 1, marketplace: true })).json().marketplace).toBe(true);

    const read = await call('GET', url(p.slug), undefined, market.key);
    expect(read.json()).toMatchObject({ version: 1, content: 'one {{x}}', environment: 'production' });
    expect((await call('GET', url(p.slug, '?environment=staging'), undefined, market.key)).statusCode).toBe(404);
    expect((await call('GET', url(p.slug, '?environment=production'), undefined, market.key)).json().version).toBe(1);
    const rendered = await call('POST', url(p.slug, '/render'), { variables: { x: 'M' } }, market.key);
    expect(rendered.json().content).toBe('one M');
    // No other version, in the history or in lists.
    expect((await call('GET', url(p.slug, '/versions/3'), undefined, market.key)).statusCode).toBe(404);
    expect((await call('GET', url(p.slug, '/versions/1'), undefined, market.key)).statusCode).toBe(200);
    const history = await call('GET', url(p.slug, '/versions'), undefined, market.key);
    expect(history.json().versions.map((v: { version: number }) => v.version)).toEqual([1]);
    const listed = await call('GET', `/api/v1/prompts?full=true&label=${label}`, undefined, market.key);
    expect(listed.json().prompts).toHaveLength(1);
    expect(listed.json().prompts[0]).toMatchObject({ title: 'One', content: 'one {{x}}', version: 1 });
    const summaries = await call('GET', `/api/v1/prompts?label=${label}`, undefined, market.key);
    expect(summaries.json().prompts[0]).toMatchObject({ title: 'One' });
    // A marked prompt among those that reference it is listed as its marked version too.
    const referrer = slug('referrer');
    await call('POST', '/api/v1/prompts', {
      title: 'Ref old',
      slug: referrer,
      content: `see @${p.slug}`,
      status: 'published',
    });
    await call('PUT', url(referrer), { title: 'Ref new' });
    expect((await setEnv(referrer, 'production', { version: 1, marketplace: true })).statusCode).toBe(200);
    const referrers = await call('GET', url(p.slug, '/referenced-by'), undefined, market.key);
    expect(referrers.json().prompts.map((x: { title: string }) => x.title)).toEqual(['Ref old']);
    expect((await call('GET', url(p.slug, '/referenced-by'))).json().prompts[0].title).toBe('Ref new');
    const envs = await call('GET', url(p.slug, '/environments'), undefined, market.key);
    expect(envs.json().environments.map((e: { name: string }) => e.name)).toEqual(['production']);
    // The owner's keys still see everything.
    expect((await call('GET', url(p.slug))).json().version).toBe(3);
    // The mark moves: one marked pointer per prompt.
    expect((await setEnv(p.slug, 'staging', { version: 2, marketplace: true })).statusCode).toBe(200);
    const marks = (await call('GET', url(p.slug, '/environments'))).json().environments;
    expect(marks.map((e: { name: string; marketplace: boolean }) => [e.name, e.marketplace])).toEqual([
      ['production', false],
      ['staging', true],
    ]);
    expect((await call('GET', url(p.slug), undefined, market.key)).json().version).toBe(2);
    // Marketplace keys cannot move pointers.
    expect((await setEnv(p.slug, 'staging', { version: 3 }, market.key)).statusCode).toBe(401);
  });
});
