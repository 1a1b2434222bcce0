import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/cli/remote/client/api.js';
import { CLI_VERSION } from '../../src/contract/index.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { openDatabase } from '../../src/storage/database.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const ORIGIN = 'http://localhost:80';
const NDJSON = { 'content-type': 'application/x-ndjson' };

type Event = Record<string, Json>;

describe.each(DIALECTS)('audit trail (%s)', (dialect) => {
  let t: TestApp;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let alice: Awaited<ReturnType<TestApp['user']>>;
  let bob: Awaited<ReturnType<TestApp['user']>>;

  beforeAll(async () => {
    t = await createTestApp(dialect, { AUDIT_RETENTION_DAYS: '30' }, { clock });
    alice = await t.user();
    bob = await t.user();
  });
  afterAll(async () => t?.close());

  const call = (key: string, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.request(key, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers,
      ...(payload !== undefined && { payload: payload as object }),
    });
  const events = async (key: string, query = ''): Promise<Event[]> => {
    const res = await call(key, 'GET', `/audit${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().events;
  };
  /** Events of one object, oldest first. */
  const trail = async (key: string, objectId: string) =>
    (await events(key, `?object_id=${objectId}&per_page=100`)).reverse();

  it('records every prompt change over REST with the key, integration, action and content hashes', async () => {
    const created = await call(alice.key, 'POST', '/prompts', { title: 'Tone', slug: 'tone', content: 'Be brief.' });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    expect((await call(alice.key, 'PUT', '/prompts/tone', { content: 'Be very brief.' })).statusCode).toBe(200);
    expect((await call(alice.key, 'PUT', '/prompts/tone', { status: 'published' })).statusCode).toBe(200);
    expect((await call(alice.key, 'PUT', '/prompts/tone', { title: 'Tone of voice' })).statusCode).toBe(200);
    expect((await call(alice.key, 'POST', '/prompts/tone/restore', { version: 1 })).statusCode).toBe(200);
    expect((await call(alice.key, 'DELETE', '/prompts/tone')).statusCode).toBe(200);

    const rows = await trail(alice.key, id);
    expect(rows.map((e) => e.action)).toEqual(['created', 'updated', 'published', 'updated', 'restored', 'deleted']);
    for (const row of rows) {
      expect(row).toMatchObject({
        object_type: 'prompt',
        object_id: id,
        object_handle: 'tone',
        surface: 'rest',
        key_id: alice.keyId,
        integration: 'ai_tools',
        client_name: null,
        client_version: null,
      });
    }
    expect(rows.map((e) => [e.hash_before, e.hash_after])).toEqual([
      [null, sha('Be brief.')],
      [sha('Be brief.'), sha('Be very brief.')],
      [sha('Be very brief.'), sha('Be very brief.')],
      [sha('Be very brief.'), sha('Be very brief.')],
      [sha('Be very brief.'), sha('Be brief.')],
      [sha('Be brief.'), null],
    ]);
    // The log is ordered: seq grows with every change, and every event has an id of its own.
    const seqs = rows.map((e) => e.seq as number);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(rows.map((e) => e.id)).size).toBe(rows.length);
    expect(rows[0]?.at).toBe(clock.now().toISOString());
    // Bob's trail holds only his own key's creation.
    expect(await events(bob.key, `?object_id=${id}`)).toEqual([]);
    // (Newest first: his key, then his account, created by the operator.)
    expect((await events(bob.key)).map((e) => [e.object_type, e.object_id])).toEqual([
      ['api_key', bob.keyId],
      ['account', bob.userId],
    ]);
  });

  it('records artifacts and memories (create, update, delete, batch), and nothing for a dedupe hit', async () => {
    const art = await call(alice.key, 'POST', '/artifacts', {
      project: 'docs',
      slug: 'spec',
      title: 'Spec',
      content: 'v1',
    });
    expect(art.statusCode).toBe(201);
    expect((await call(alice.key, 'PUT', '/artifacts/docs/spec', { content: 'v2' })).statusCode).toBe(200);
    expect((await call(alice.key, 'DELETE', '/artifacts/docs/spec')).statusCode).toBe(200);
    const artRows = await trail(alice.key, art.json().id);
    expect(artRows.map((e) => [e.action, e.object_handle, e.hash_before, e.hash_after])).toEqual([
      ['created', 'docs/spec', null, sha('v1')],
      ['updated', 'docs/spec', sha('v1'), sha('v2')],
      ['deleted', 'docs/spec', sha('v2'), null],
    ]);

    const mem = await call(alice.key, 'POST', '/memories', { text: 'Use tabs for Go code' });
    expect(mem.statusCode).toBe(201);
    const memId = mem.json().memory_id as string;
    const before = (await events(alice.key, '?object_type=memory&per_page=100')).length;
    const again = await call(alice.key, 'POST', '/memories', { text: 'use tabs for go code.' });
    expect(again.json().deduped).toBe(true);
    expect(await events(alice.key, '?object_type=memory&per_page=100')).toHaveLength(before);
    expect((await call(alice.key, 'PUT', `/memories/${memId}`, { text: 'Use tabs in Go' })).statusCode).toBe(200);
    expect((await call(alice.key, 'DELETE', `/memories/${memId}`)).statusCode).toBe(200);
    expect((await trail(alice.key, memId)).map((e) => [e.action, e.hash_before, e.hash_after])).toEqual([
      ['created', null, sha('Use tabs for Go code')],
      ['updated', sha('Use tabs for Go code'), sha('Use tabs in Go')],
      ['deleted', sha('Use tabs in Go'), null],
    ]);

    const batch = await call(alice.key, 'POST', '/memories/batch', {
      memories: [{ text: 'batch one' }, { text: 'batch two' }, { text: 'batch three' }],
    });
    expect(batch.statusCode).toBe(201);
    const ids = (batch.json().memories as Array<{ memory_id: string }>).map((m) => m.memory_id);
    const created = await events(alice.key, '?object_type=memory&action=created&per_page=3');
    expect(created.map((e) => e.object_id).sort()).toEqual([...ids].sort());
    expect(created.map((e) => e.hash_after).sort()).toEqual(['batch one', 'batch two', 'batch three'].map(sha).sort());
  });

  it('writes nothing when the change fails: a slug conflict, an If-Match mismatch, an invalid batch item', async () => {
    expect((await call(alice.key, 'POST', '/prompts', { title: 'A', slug: 'taken', content: 'x' })).statusCode).toBe(
      201,
    );
    const count = async () => (await events(alice.key, '?per_page=100')).length;
    const start = await count();
    expect((await call(alice.key, 'POST', '/prompts', { title: 'B', slug: 'taken', content: 'y' })).statusCode).toBe(
      409,
    );
    expect((await call(alice.key, 'PUT', '/prompts/taken', { content: 'z' }, { 'if-match': '"7"' })).statusCode).toBe(
      412,
    );
    const bad = await call(alice.key, 'POST', '/memories/batch', { memories: [{ text: 'fine' }, { text: '' }] });
    expect(bad.statusCode).toBe(400);
    expect(await count()).toBe(start);
  });

  it('names the remote CLI by its User-Agent, with the key’s cli integration', async () => {
    // The real CLI client over a real port (closed with the app).
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    {
      const client = new ApiClient({ url: base, apiKey: alice.key, keySource: 'flag' } as never);
      const created = await client.json<{ id: string }>('POST', '/prompts', {
        json: { title: 'From CLI', slug: 'from-cli', content: 'cli' },
      });
      const [row] = await trail(alice.key, created.id);
      expect(row).toMatchObject({
        action: 'created',
        surface: 'cli',
        key_id: alice.keyId,
        integration: 'cli',
        client_name: 'cairn-cli',
        client_version: CLI_VERSION,
      });
    }
  });
});

describe.each(DIALECTS)('audit trail: dashboard, operator, import, filters, paging, retention (%s)', (dialect) => {
  let t: TestApp;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp(dialect, { AUDIT_RETENTION_DAYS: '30' }, { clock });
  });
  afterAll(async () => t?.close());

  const call = (key: string, method: string, url: string, payload?: unknown) =>
    t.request(key, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload !== undefined && { payload: payload as object }),
    });
  const events = async (key: string, query = ''): Promise<Event[]> => {
    const res = await call(key, 'GET', `/audit${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().events;
  };

  it('records dashboard changes under the session (no key) and key management, operator commands as cli', async () => {
    let cookie = '';
    const dash = async (method: string, url: string, payload?: unknown) => {
      const res = await t.app.inject({
        method: method as 'GET',
        url: `/dashboard/api${url}`,
        headers: { ...(cookie && { cookie }), ...(method !== 'GET' && { origin: ORIGIN }) },
        ...(payload !== undefined && { payload: payload as object }),
      });
      const set = res.headers['set-cookie'];
      if (typeof set === 'string') cookie = set.split(';')[0] ?? '';
      return res;
    };
    expect(
      (await dash('POST', '/signup', { email: 'dash@example.com', password: 'correct horse battery' })).statusCode,
    ).toBe(201);
    const created = await dash('POST', '/prompts', { title: 'Dash', slug: 'dash', content: 'from the dashboard' });
    expect(created.statusCode).toBe(201);
    const key = await dash('POST', '/keys', { name: 'laptop', integrations: ['cli'] });
    expect(key.statusCode).toBe(201);
    expect((await dash('POST', `/keys/${key.json().id}/revoke`)).statusCode).toBe(200);
    const operatorKey = await t.key('dash@example.com', ['ai_tools']);

    const list = await dash('GET', '/audit?per_page=10');
    expect(list.statusCode).toBe(200);
    const rows = (list.json().events as Event[]).reverse();
    expect(rows.map((e) => [e.object_type, e.action, e.surface, e.key_id, e.client_name])).toEqual([
      ['account', 'created', 'dashboard', null, null],
      ['prompt', 'created', 'dashboard', null, null],
      ['api_key', 'created', 'dashboard', null, null],
      ['api_key', 'revoked', 'dashboard', null, null],
      ['api_key', 'created', 'cli', null, 'cairn-operator'],
    ]);
    expect(rows[2]).toMatchObject({ object_id: key.json().id, object_handle: 'laptop', hash_before: null });
    expect(rows[4]?.object_id).toBe(operatorKey.keyId);
    // The dashboard reads the same list with the same filters.
    const filtered = await dash('GET', '/audit?object_type=api_key&action=revoked');
    expect((filtered.json().events as Event[]).map((e) => e.object_id)).toEqual([key.json().id]);
  });

  it('records a bundle import under the surface import, with the importing key', async () => {
    const from = await t.user();
    const into = await t.user();
    await call(from.key, 'POST', '/prompts', { title: 'P', slug: 'p', content: 'prompt text' });
    await call(from.key, 'POST', '/memories', { text: 'a memory to carry over' });
    await call(from.key, 'POST', '/artifacts', { project: 'x', slug: 'doc', title: 'Doc', content: 'doc text' });
    const bundle = (await call(from.key, 'GET', '/export')).body;
    const res = await t.request(into.key, { method: 'POST', url: '/api/v1/import', headers: NDJSON, payload: bundle });
    expect(res.statusCode, res.body).toBe(200);
    const rows = await events(into.key, '?surface=import');
    expect(rows.map((e) => [e.object_type, e.action]).sort()).toEqual([
      ['artifact', 'created'],
      ['memory', 'created'],
      ['prompt', 'created'],
    ]);
    for (const row of rows) expect(row).toMatchObject({ key_id: into.keyId, integration: 'ai_tools' });
    expect(rows.find((e) => e.object_type === 'prompt')?.hash_after).toBe(sha('prompt text'));
    // Importing again changes nothing, and records nothing.
    await t.request(into.key, { method: 'POST', url: '/api/v1/import', headers: NDJSON, payload: bundle });
    expect(await events(into.key, '?surface=import')).toHaveLength(3);
  });

  it('filters by object, action, surface, key and time, pages by cursor, and shows only the caller’s events', async () => {
    const u = await t.user();
    const second = await t.key(u.email, ['ai_tools']);
    clock.set('2026-11-22T10:00:00.000Z');
    for (const slug of ['a', 'b', 'c']) await call(u.key, 'POST', '/prompts', { title: slug, slug, content: slug });
    clock.set('2026-11-23T10:00:00.000Z');
    await call(second.key, 'PUT', '/prompts/a', { content: 'a2' });
    await call(second.key, 'DELETE', '/prompts/b');

    const all = await events(u.key, '?object_type=prompt');
    expect(all.map((e) => [e.object_handle, e.action])).toEqual([
      ['b', 'deleted'],
      ['a', 'updated'],
      ['c', 'created'],
      ['b', 'created'],
      ['a', 'created'],
    ]);
    expect((await events(u.key, '?action=deleted')).map((e) => e.object_handle)).toEqual(['b']);
    expect((await events(u.key, `?key_id=${second.keyId}`)).map((e) => e.action)).toEqual(['deleted', 'updated']);
    expect(await events(u.key, '?surface=mcp')).toEqual([]);
    expect((await events(u.key, '?object_type=prompt&since=2026-11-23T00:00:00Z')).length).toBe(2);
    expect((await events(u.key, '?object_type=prompt&until=2026-11-23T00:00:00Z')).length).toBe(3);
    expect((await events(u.key, `?object_id=${all[1]?.object_id}`)).length).toBe(2);

    // Cursor paging walks the whole list, newest first, without repeats.
    const seen: Json[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res = await call(u.key, 'GET', `/audit?object_type=prompt&per_page=2${cursor ? `&cursor=${cursor}` : ''}`);
      const body = res.json();
      expect(body.per_page).toBe(2);
      seen.push(...(body.events as Event[]).map((e) => e.seq as number));
      cursor = body.next_cursor;
    }
    expect(seen).toEqual(all.map((e) => e.seq));

    // Another user's events are invisible, even by id.
    const other = await t.user();
    expect(await events(other.key, `?object_id=${all[0]?.object_id}`)).toEqual([]);
  });

  it('refuses bad filters and keys without a content integration', async () => {
    const u = await t.user();
    for (const query of ['?cursor=abc', '?since=yesterday', '?action=exploded', '?surface=fax', '?per_page=1000']) {
      const res = await call(u.key, 'GET', `/audit${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('validation_error');
    }
    const mcpOnly = await t.key(u.email, ['mcp_server']);
    expect((await call(mcpOnly.key, 'GET', '/audit')).statusCode).toBe(401);
  });

  it('prunes events past the retention, off the request path, in bounded rounds', async () => {
    const u = await t.user();
    clock.set('2026-11-24T10:00:00.000Z');
    await call(u.key, 'POST', '/memories', { text: 'old news' });
    clock.set('2026-12-10T10:00:00.000Z');
    await call(u.key, 'POST', '/memories', { text: 'fresh news' });
    expect(await events(u.key, '?object_type=memory')).toHaveLength(2);
    clock.set('2026-12-30T10:00:00.000Z'); // 36 days after the first, 20 after the second
    expect(await t.container.services.audit.prune()).toBeGreaterThanOrEqual(1);
    const left = await events(u.key, '?object_type=memory');
    expect(left.map((e) => e.hash_after)).toEqual([sha('fresh news')]);
  });
});

describe.each(DIALECTS)('audit trail: account changes (%s)', (dialect) => {
  let t: TestApp;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { clock });
  });
  afterAll(async () => t?.close());

  /** A dashboard client with its own cookie jar. */
  const browser = () => {
    let cookie = '';
    return async (method: string, url: string, payload?: unknown) => {
      const res = await t.app.inject({
        method: method as 'GET',
        url: `/dashboard/api${url}`,
        headers: { ...(cookie && { cookie }), ...(method !== 'GET' && { origin: ORIGIN }) },
        ...(payload !== undefined && { payload: payload as object }),
      });
      const set = res.headers['set-cookie'];
      if (typeof set === 'string') cookie = set.split(';')[0] ?? '';
      return res;
    };
  };
  const accountRows = async (dash: ReturnType<typeof browser>): Promise<Event[]> => {
    const res = await dash('GET', '/audit?object_type=account&per_page=100');
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().events as Event[]).reverse();
  };
  const viaKey = async (key: string, query: string): Promise<Event[]> => {
    const res = await t.request(key, { method: 'GET', url: `/api/v1/audit${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().events as Event[]).reverse();
  };
  /** Every account row of the installation, whoever's trail it is in. */
  const allAccountRows = async () => {
    const db = await openDatabase(t.database.url);
    try {
      return await db.db.selectFrom('audit_events').selectAll().where('object_type', '=', 'account').execute();
    } finally {
      await db.close();
    }
  };
  const PASSWORD = 'correct horse battery';

  it('records sign-up, the operator’s create and update, an admin’s update and a password change, each once', async () => {
    // Sign-up through the dashboard (the first user: the admin): the new account's own row, no key.
    const admin = browser();
    const signup = await admin('POST', '/signup', { email: 'admin@example.com', password: PASSWORD });
    expect(signup.statusCode, signup.body).toBe(201);
    const adminId = signup.json().user.id as string;
    expect(await accountRows(admin)).toEqual([
      expect.objectContaining({
        object_type: 'account',
        object_id: adminId,
        object_handle: 'admin@example.com',
        action: 'created',
        surface: 'dashboard',
        key_id: null,
        integration: null,
        client_name: null,
        client_version: null,
        hash_before: null,
        hash_after: null,
        at: clock.now().toISOString(),
      }),
    ]);

    // The operator's `cairn users create` and `cairn users update`: surface cli, client cairn-operator.
    const member = await t.user({ email: 'member@example.com' });
    clock.set('2026-11-21T11:00:00.000Z');
    await t.container.services.users.update(OPERATOR, 'member@example.com', { tier: 'pro' });
    // A dashboard admin's change of the member's limit: in the member's trail, surface dashboard.
    clock.set('2026-11-21T12:00:00.000Z');
    const patched = await admin('PATCH', `/admin/users/${member.userId}`, { rate_limit: 500 });
    expect(patched.statusCode, patched.body).toBe(200);
    const memberRows = await viaKey(member.key, '?object_type=account');
    expect(memberRows.map((e) => [e.action, e.surface, e.key_id, e.integration, e.client_name, e.at])).toEqual([
      ['created', 'cli', null, null, 'cairn-operator', '2026-11-21T10:00:00.000Z'],
      ['updated', 'cli', null, null, 'cairn-operator', '2026-11-21T11:00:00.000Z'],
      ['updated', 'dashboard', null, null, null, '2026-11-21T12:00:00.000Z'],
    ]);
    for (const row of memberRows) {
      expect(row).toMatchObject({
        object_id: member.userId,
        object_handle: 'member@example.com',
        hash_before: null,
        hash_after: null,
      });
    }
    // The admin made the change, but it is the member's account: nothing of it in the admin's trail.
    expect((await accountRows(admin)).map((e) => e.object_id)).toEqual([adminId]);

    // A password change: one `updated`, no hashes (a password is never hashed into the trail).
    const changed = await admin('POST', '/password', {
      current_password: PASSWORD,
      new_password: 'another fine password',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const adminRows = await accountRows(admin);
    expect(adminRows.map((e) => [e.action, e.object_id, e.surface, e.key_id, e.hash_before, e.hash_after])).toEqual([
      ['created', adminId, 'dashboard', null, null, null],
      ['updated', adminId, 'dashboard', null, null, null],
    ]);
    expect(JSON.stringify(adminRows)).not.toContain('another fine password');

    // Another user sees none of them, even by id.
    const other = await t.user();
    expect(await viaKey(other.key, `?object_id=${member.userId}`)).toEqual([]);
    expect(await viaKey(other.key, `?object_id=${adminId}`)).toEqual([]);
    expect((await viaKey(other.key, '?object_type=account')).map((e) => e.object_id)).toEqual([other.userId]);
    // Six account rows in the whole table: the sign-up, two creations, two updates, one password change.
    expect(await allAccountRows()).toHaveLength(6);
  });

  it('records nothing for a refused change: a taken e-mail, a wrong current password, a refused patch', async () => {
    const before = await allAccountRows();
    const dash = browser();
    const taken = await dash('POST', '/signup', { email: 'member@example.com', password: PASSWORD });
    expect(taken.statusCode).toBe(409);
    await expect(
      t.container.services.users.create(OPERATOR, { email: 'member@example.com', tier: 'free' }),
    ).rejects.toMatchObject({ code: 'conflict' });

    const user = browser();
    expect((await user('POST', '/signup', { email: 'someone@example.com', password: PASSWORD })).statusCode).toBe(201);
    const afterSignup = await allAccountRows();
    expect(afterSignup).toHaveLength(before.length + 1);
    const wrong = await user('POST', '/password', {
      current_password: 'not my password',
      new_password: 'whatever else',
    });
    expect(wrong.statusCode).toBe(400);
    // Not an admin: the patch is refused as not found, and records nothing.
    const notAdmin = await user('PATCH', `/admin/users/${before[0]?.object_id}`, { rate_limit: 5 });
    expect(notAdmin.statusCode).toBe(404);
    await expect(
      t.container.services.users.update(OPERATOR, 'nobody@example.com', { tier: 'pro' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await allAccountRows()).toEqual(afterSignup);
  });

  it('records the removal of a sign-up that lost the race for an invite code: created, then deleted', async () => {
    const invite = await createTestApp(dialect, { SIGNUP_MODE: 'invite' }, { clock });
    try {
      const signup = (email: string, code?: string) =>
        invite.app.inject({
          method: 'POST',
          url: '/dashboard/api/signup',
          headers: { origin: ORIGIN },
          payload: { email, password: PASSWORD, ...(code && { invite_code: code }) },
        });
      const first = await signup('first@example.com');
      expect(first.statusCode).toBe(201);
      const cookie = String(first.headers['set-cookie']).split(';')[0] ?? '';
      const made = await invite.app.inject({
        method: 'POST',
        url: '/dashboard/api/admin/invites',
        headers: { cookie, origin: ORIGIN },
      });
      const code = made.json().code as string;
      // Both pass the code check (before hashing their password); the redemption picks one. On SQLite
      // both checks run before either hash ends (one connection, no I/O between); on PostgreSQL each step
      // is a round trip, so the test holds the invite's row locked until both accounts exist: neither
      // redemption can go first, whatever the machine's load.
      const both = ['one@example.com', 'two@example.com'];
      const release = dialect === 'postgres' ? await holdInvites(invite.database.url, both) : undefined;
      const [one, two] = await Promise.all([
        signup('one@example.com', code),
        signup('two@example.com', code),
        release?.(),
      ]);
      const answers = [one, two] as const;
      expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 400]);
      const loser = answers[0]?.statusCode === 400 ? 'one@example.com' : 'two@example.com';
      const db = await openDatabase(invite.database.url);
      try {
        const rows = await db.db
          .selectFrom('audit_events')
          .selectAll()
          .where('object_handle', '=', loser)
          .orderBy('seq')
          .execute();
        expect(rows.map((r) => [r.object_type, r.action, r.surface, r.key_id, r.user_id === r.object_id])).toEqual([
          ['account', 'created', 'dashboard', null, true],
          ['account', 'deleted', 'dashboard', null, true],
        ]);
        expect(await db.db.selectFrom('users').select('id').where('email', '=', loser).execute()).toEqual([]);
      } finally {
        await db.close();
      }
    } finally {
      await invite.close();
    }
  });
});

/**
 * Locks every invite row (a transaction on its own connection) and releases it once the accounts of
 * `emails` exist: sign-ups that passed the invite check then meet at the redemption together.
 */
async function holdInvites(url: string, emails: string[]): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('begin');
  await client.query('select 1 from invites for update');
  return async () => {
    try {
      // Another connection: reads committed accounts, and never waits for the lock it holds.
      for (;;) {
        const { rows } = await client.query('select count(*)::int as n from users where email = any($1)', [emails]);
        if (rows[0]?.n === emails.length) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Both accounts exist and no redemption got through the lock: they meet at it together.
      const redeemed = await client.query('select count(*)::int as n from invites where used_by is not null');
      if (redeemed.rows[0]?.n !== 0) throw new Error('an invite was redeemed while its row was locked');
      await client.query('commit');
    } finally {
      await client.end();
    }
  };
}
