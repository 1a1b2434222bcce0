import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWASP_SCRYPT } from '../../src/domain/accounts/password.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { awayFromHourBoundary } from '../helpers/clock.js';
import { DIALECTS } from '../helpers/databases.js';

const ORIGIN = 'http://localhost:80';

/** A browser-like client: keeps the session cookie and sends this site's Origin on state changes. */
function browser(t: TestApp) {
  let cookie = '';
  const call = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url: `/dashboard/api${url}`,
      headers: { ...(cookie && { cookie }), ...(method !== 'GET' && { origin: ORIGIN }), ...headers },
      ...(payload !== undefined && { payload: payload as object }),
    });
    const set = res.headers['set-cookie'];
    if (typeof set === 'string') cookie = set.split(';')[0] ?? '';
    return res;
  };
  return {
    call,
    get cookie() {
      return cookie;
    },
    set cookie(value: string) {
      cookie = value;
    },
  };
}

const PASSWORD = 'correct horse battery staple';

// This suite hashes at the real parameters (other tests use cheap ones), and that is deliberately slow
// (scrypt N=2^17): a loaded two-core machine needs more than 20 s for the tests that hash several times.
describe.each(DIALECTS)('dashboard API (%s)', { timeout: 60_000 }, (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { passwordHashing: OWASP_SCRYPT });
  });
  afterAll(async () => t?.close());

  it('signs up (first user is admin) with a HttpOnly SameSite=Lax session cookie, and knows who is signed in', async () => {
    const b = browser(t);
    expect((await b.call('GET', '/config')).json()).toEqual({ signup_mode: 'open', has_users: false });
    const res = await b.call('POST', '/signup', { email: 'Admin@Example.com', password: PASSWORD });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toMatchObject({ email: 'admin@example.com', is_admin: true });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^cairn_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);
    expect((await b.call('GET', '/me')).json().user.email).toBe('admin@example.com');
    const second = browser(t);
    const other = await second.call('POST', '/signup', { email: 'second@example.com', password: PASSWORD });
    expect(other.json().user.is_admin).toBe(false);
  });

  it('refuses weak passwords, duplicates and unknown fields', async () => {
    const b = browser(t);
    expect(
      (await b.call('POST', '/signup', { email: 'weak@example.com', password: 'password' })).json().details.password,
    ).toMatch(/common/);
    expect((await b.call('POST', '/signup', { email: 'short@example.com', password: 'short' })).statusCode).toBe(400);
    expect((await b.call('POST', '/signup', { email: 'admin@example.com', password: PASSWORD })).statusCode).toBe(409);
    expect(
      (await b.call('POST', '/signup', { email: 'x@example.com', password: PASSWORD, admin: true })).json().details
        .admin,
    ).toBeTruthy();
  });

  it('logs in, rotates the session on login, and logout kills the session server-side', async () => {
    const b = browser(t);
    expect(
      (await b.call('POST', '/login', { email: 'admin@example.com', password: 'wrong password!' })).statusCode,
    ).toBe(401);
    const first = await b.call('POST', '/login', { email: 'admin@example.com', password: PASSWORD });
    expect(first.statusCode).toBe(200);
    const firstCookie = b.cookie;
    await b.call('POST', '/login', { email: 'admin@example.com', password: PASSWORD });
    expect(b.cookie).not.toBe(firstCookie);
    const stolen = b.cookie;
    expect((await b.call('POST', '/logout')).statusCode).toBe(200);
    b.cookie = stolen;
    expect((await b.call('GET', '/me')).statusCode).toBe(401);
  });

  it('throttles failed logins per account', async () => {
    await awayFromHourBoundary(30_000); // eleven slow password checks must fall in one hour's window
    const b = browser(t);
    await b.call('POST', '/signup', { email: 'target@example.com', password: PASSWORD });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (await b.call('POST', '/login', { email: 'target@example.com', password: `guess number ${i}` })).statusCode,
      );
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const right = await b.call('POST', '/login', { email: 'target@example.com', password: PASSWORD });
    expect(right.statusCode).toBe(429);
    expect(right.headers['retry-after']).toBeTruthy();
  });

  it('refuses state changes from another origin or without one (CSRF), even with a valid session', async () => {
    const b = browser(t);
    await b.call('POST', '/login', { email: 'admin@example.com', password: PASSWORD });
    const evil = await b.call(
      'POST',
      '/keys',
      { name: 'x', integrations: ['cli'] },
      { origin: 'https://evil.example' },
    );
    expect(evil.statusCode).toBe(403);
    expect(evil.json().error).toBe('forbidden');
    const none = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/keys',
      headers: { cookie: b.cookie },
      payload: { name: 'x', integrations: ['cli'] },
    });
    expect(none.statusCode).toBe(403);
    expect((await b.call('GET', '/keys')).json().keys).toEqual([]);
  });

  it('manages API keys: shown once, listed without the key, revoke is immediate, delete', async () => {
    const b = browser(t);
    await b.call('POST', '/login', { email: 'admin@example.com', password: PASSWORD });
    const created = await b.call('POST', '/keys', { name: 'Laptop', integrations: ['cli', 'ai_tools'] });
    expect(created.statusCode).toBe(201);
    const { key, id } = created.json();
    expect(key).toMatch(/^svk_[A-Za-z0-9]{64}$/);
    const listed = (await b.call('GET', '/keys')).json().keys;
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(listed[0]).toMatchObject({ name: 'Laptop', integrations: ['ai_tools', 'cli'], request_count: 0 });

    const api = () => t.request(key, { method: 'GET', url: '/api/v1/prompts' });
    expect((await api()).statusCode).toBe(200);
    const usage = (await b.call('GET', '/usage?hours=48')).json();
    expect(usage.window).toMatchObject({ count: 1, limit: 1000, remaining: 999 });
    expect(usage.hours).toEqual([expect.objectContaining({ key_id: id, key_name: 'Laptop', count: 1 })]);
    expect((await b.call('GET', '/keys')).json().keys[0].request_count).toBe(1);

    expect((await b.call('POST', `/keys/${id}/revoke`)).json().revoked_at).toMatch(/Z$/);
    expect((await api()).statusCode).toBe(401);
    expect((await b.call('DELETE', `/keys/${id}`)).statusCode).toBe(200);
    expect((await b.call('GET', '/keys')).json().keys).toEqual([]);
    // Something that is not a key id is simply not found, on every database (U+0000 was a 500 on PostgreSQL).
    for (const bad of ['a%00b', 'not-an-id', `${id}x`]) {
      expect((await b.call('POST', `/keys/${bad}/revoke`)).statusCode, bad).toBe(404);
      expect((await b.call('DELETE', `/keys/${bad}`)).statusCode, bad).toBe(404);
    }
  });

  it('is closed to API keys: no dashboard endpoint accepts one', async () => {
    const { key } = await t.user();
    for (const [method, url] of [
      ['GET', '/me'],
      ['GET', '/keys'],
      ['POST', '/keys'],
      ['GET', '/usage'],
      ['GET', '/prompts'],
      ['GET', '/memories'],
      ['GET', '/artifacts'],
      ['GET', '/admin/users'],
    ] as const) {
      const res: LightMyRequestResponse = await t.app.inject({
        method,
        url: `/dashboard/api${url}`,
        headers: { authorization: `Bearer ${key}`, origin: ORIGIN },
        ...(method === 'POST' && { payload: { name: 'x', integrations: ['cli'] } }),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('serves content to the session owner only', async () => {
    const alice = browser(t);
    await alice.call('POST', '/signup', { email: 'alice@example.com', password: PASSWORD });
    const bob = browser(t);
    await bob.call('POST', '/signup', { email: 'bob@example.com', password: PASSWORD });
    const prompt = (
      await alice.call('POST', '/prompts', { title: '<script>alert(1)</script>', content: 'Hi {{x}}' })
    ).json();
    const memory = (await alice.call('POST', '/memories', { text: 'alice only' })).json();
    const artifact = (
      await alice.call('POST', '/artifacts', { project: 'a/b', title: 'Doc', content: 'secret' })
    ).json();
    expect((await alice.call('GET', `/prompts/${prompt.id}`)).json().title).toBe('<script>alert(1)</script>');
    expect((await bob.call('GET', `/prompts/${prompt.id}`)).statusCode).toBe(404);
    expect((await bob.call('GET', `/memories/${memory.memory_id}`)).statusCode).toBe(404);
    expect((await bob.call('GET', '/artifacts/a%2Fb/doc')).statusCode).toBe(404);
    expect((await bob.call('DELETE', `/prompts/${prompt.id}`)).statusCode).toBe(404);
    expect((await bob.call('GET', '/memories?search=alice')).json().total).toBe(0);
    expect((await bob.call('GET', '/prompts')).json().total).toBe(0);
    expect(artifact.slug).toBe('doc');
  });

  it('refuses an amplifying render (6 prompts × 40 references) with the same 400 as the REST API', async () => {
    const amp = browser(t);
    await amp.call('POST', '/signup', { email: 'amp@example.com', password: PASSWORD });
    for (let i = 5; i >= 0; i--) {
      const content = i === 5 ? 'leaf' : Array.from({ length: 40 }, () => `@amp-${i + 1}`).join(' ');
      const created = await amp.call('POST', '/prompts', { title: `Amp ${i}`, slug: `amp-${i}`, content });
      expect(created.statusCode, created.body).toBe(201);
    }
    const res = await amp.call('POST', '/prompts/amp-0/render', {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'validation_error',
      message: expect.stringMatching(
        /^The rendered prompt exceeds the limit of 1,000,000 characters while expanding @amp-0 → @amp-1/,
      ),
    });
  });

  it('changes the password only with the current one, and signs out other sessions', async () => {
    const one = browser(t);
    await one.call('POST', '/signup', { email: 'pw@example.com', password: PASSWORD });
    const two = browser(t);
    await two.call('POST', '/login', { email: 'pw@example.com', password: PASSWORD });
    expect(
      (await one.call('POST', '/password', { current_password: 'nope nope nope', new_password: 'another good one' }))
        .statusCode,
    ).toBe(400);
    expect(
      (await one.call('POST', '/password', { current_password: PASSWORD, new_password: 'another good one' }))
        .statusCode,
    ).toBe(200);
    expect((await one.call('GET', '/me')).statusCode).toBe(200);
    expect((await two.call('GET', '/me')).statusCode).toBe(401);
    expect((await two.call('POST', '/login', { email: 'pw@example.com', password: PASSWORD })).statusCode).toBe(401);
    expect(
      (await two.call('POST', '/login', { email: 'pw@example.com', password: 'another good one' })).statusCode,
    ).toBe(200);
  });

  it('gives admins user management and invites, and hides it from others', async () => {
    const admin = browser(t);
    await admin.call('POST', '/login', { email: 'admin@example.com', password: PASSWORD });
    const users = (await admin.call('GET', '/admin/users')).json().users;
    const second = users.find((u: { email: string }) => u.email === 'second@example.com');
    const patched = await admin.call('PATCH', `/admin/users/${second.id}`, { tier: 'pro', rate_limit: 1234 });
    expect(patched.json().user).toMatchObject({ tier: 'pro', rate_limit: 1234 });
    expect((await admin.call('POST', '/admin/invites')).json().code).toMatch(/^[\w-]{43}$/);
    const plain = browser(t);
    await plain.call('POST', '/login', { email: 'second@example.com', password: PASSWORD });
    expect((await plain.call('GET', '/admin/users')).statusCode).toBe(404);
    expect((await plain.call('PATCH', `/admin/users/${second.id}`, { tier: 'enterprise' })).statusCode).toBe(404);
  });
});

describe('sign-up modes', () => {
  it('invite: needs a one-time code from an admin; closed: only the first user', async () => {
    const invite = await createTestApp('sqlite', { SIGNUP_MODE: 'invite' });
    try {
      const admin = browser(invite);
      expect((await admin.call('POST', '/signup', { email: 'first@example.com', password: PASSWORD })).statusCode).toBe(
        201,
      );
      const guest = browser(invite);
      expect(
        (await guest.call('POST', '/signup', { email: 'g@example.com', password: PASSWORD })).json().details
          .invite_code,
      ).toBeTruthy();
      expect(
        (await guest.call('POST', '/signup', { email: 'g@example.com', password: PASSWORD, invite_code: 'forged' }))
          .statusCode,
      ).toBe(400);
      const { code } = (await admin.call('POST', '/admin/invites')).json();
      expect(
        (await guest.call('POST', '/signup', { email: 'g@example.com', password: PASSWORD, invite_code: code }))
          .statusCode,
      ).toBe(201);
      const reuse = browser(invite);
      expect(
        (await reuse.call('POST', '/signup', { email: 'h@example.com', password: PASSWORD, invite_code: code }))
          .statusCode,
      ).toBe(400);
    } finally {
      await invite.close();
    }
    const closed = await createTestApp('sqlite', { SIGNUP_MODE: 'closed' });
    try {
      expect(
        (await browser(closed).call('POST', '/signup', { email: 'first@example.com', password: PASSWORD })).statusCode,
      ).toBe(201);
      const late = await browser(closed).call('POST', '/signup', { email: 'late@example.com', password: PASSWORD });
      expect(late.statusCode).toBe(403);
      expect(late.json().error).toBe('forbidden');
    } finally {
      await closed.close();
    }
  });
});

describe('session cookie over HTTPS', () => {
  it('is __Host- prefixed and Secure when the request came over HTTPS (behind a trusted proxy)', async () => {
    const t = await createTestApp('sqlite', { TRUST_PROXY: '1' });
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/dashboard/api/signup',
        headers: { 'x-forwarded-proto': 'https', host: 'cairn.example', origin: 'https://cairn.example' },
        payload: { email: 'tls@example.com', password: PASSWORD },
      });
      expect(res.statusCode).toBe(201);
      expect(String(res.headers['set-cookie'])).toMatch(
        /^__Host-cairn_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
      );
      const token = String(res.headers['set-cookie']).split(';')[0] ?? '';
      const me = await t.app.inject({
        method: 'GET',
        url: '/dashboard/api/me',
        headers: { 'x-forwarded-proto': 'https', host: 'cairn.example', cookie: token },
      });
      expect(me.json().user.email).toBe('tls@example.com');
      // The plain-HTTP cookie name is not accepted over HTTPS.
      const plain = await t.app.inject({
        method: 'GET',
        url: '/dashboard/api/me',
        headers: { 'x-forwarded-proto': 'https', host: 'cairn.example', cookie: token.replace('__Host-', '') },
      });
      expect(plain.statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
