import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { OWASP_SCRYPT } from '../../src/domain/accounts/password.js';
import { currentWindow } from '../../src/domain/limits/rate-limit.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { COUNTERS, counterEnv } from '../helpers/databases.js';

/**
 * Throttles that must hold under concurrency (issue 12): login reservations, the sign-up budget per
 * address, invite codes checked first, the dashboard's own hourly budget, and key/surface mismatches
 * spending the address's failed-authentication budget. Every variant runs with the in-process counters
 * and, with TEST_REDIS_URL, with Redis; windows come from an injected clock.
 */
const ORIGIN = 'http://localhost:80';
const PASSWORD = 'correct horse battery staple';

const dashboard = (t: TestApp, method: 'GET' | 'POST', url: string, options: Partial<InjectOptions> = {}) =>
  t.app.inject({
    ...options,
    method,
    url: `/dashboard/api${url}`,
    headers: { ...(method !== 'GET' && { origin: ORIGIN }), ...(options.headers as Record<string, string>) },
  });

const cookieOf = (res: LightMyRequestResponse) => String(res.headers['set-cookie']).split(';')[0] ?? '';

/** The 429 contract shared by every throttle: error code, retry_after and Retry-After agreeing. */
function expectTooMany(res: LightMyRequestResponse, retryAfter?: number) {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), retry_after: expect.any(Number) });
  expect(res.headers['retry-after']).toBe(String(body.retry_after));
  if (retryAfter !== undefined) expect(body.retry_after).toBe(retryAfter);
}

// The real hashing parameters here: slow checks are what keep parallel attempts overlapping (the case the
// reservations exist for). They are deliberately slow (scrypt N=2^17): ten checks in parallel take seconds.
describe.each(COUNTERS)('login reservations (%s counters)', { timeout: 90_000 }, (counters) => {
  const clock = manualClock('2026-11-21T10:30:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', counterEnv(counters), { clock, passwordHashing: OWASP_SCRYPT });
    expect(
      (await dashboard(t, 'POST', '/signup', { payload: { email: 'target@example.com', password: PASSWORD } }))
        .statusCode,
    ).toBe(201);
  });
  afterAll(async () => t?.close());

  const login = (email: string, password: string, remoteAddress = '10.1.0.1') =>
    dashboard(t, 'POST', '/login', { payload: { email, password }, remoteAddress });

  it('30 parallel wrong-password logins for one account: exactly 10 password checks (401), 20 × 429', async () => {
    clock.set('2026-11-21T10:30:00.000Z');
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login('target@example.com', `wrong guess ${i}`)),
    );
    // A 401 is the answer of a password check; a 429 was refused before any.
    expect(responses.filter((r) => r.statusCode === 401)).toHaveLength(10);
    const refused = responses.filter((r) => r.statusCode === 429);
    expect(refused).toHaveLength(20);
    for (const res of refused) expectTooMany(res, 1800);
    // The budget is spent: even the right password is not checked this hour, from any address.
    expectTooMany(await login('target@example.com', PASSWORD, '10.1.0.2'));
    // The next hour starts a new budget.
    clock.set('2026-11-21T11:00:00.000Z');
    expect((await login('target@example.com', PASSWORD)).statusCode).toBe(200);
  });

  it('a successful login gives its reservation back; a failed one keeps it', async () => {
    clock.set('2026-11-21T12:05:00.000Z');
    const window = currentWindow(clock.now());
    const peek = (key: string) => t.container.counters.peek(key, window);
    expect((await login('target@example.com', 'not the password', '10.1.0.3')).statusCode).toBe(401);
    expect((await login('target@example.com', PASSWORD, '10.1.0.3')).statusCode).toBe(200);
    expect(await peek('login:account:target@example.com')).toBe(1);
    expect(await peek('login:address:10.1.0.3')).toBe(1);
  });

  it('unknown e-mails spend the reservation too, and a refused attempt spends nothing', async () => {
    clock.set('2026-11-21T13:05:00.000Z');
    const window = currentWindow(clock.now());
    // Nine failures already this hour (taken directly, to spare nine slow password checks).
    expect((await t.container.counters.tryTake('login:account:nobody@example.com', 10, window, 9)).taken).toBe(true);
    const responses = await Promise.all(
      Array.from({ length: 3 }, (_, i) => login('nobody@example.com', `guess ${i}`, '10.1.0.4')),
    );
    expect(responses.filter((r) => r.statusCode === 401)).toHaveLength(1);
    expect(responses.filter((r) => r.statusCode === 429)).toHaveLength(2);
    // The account's refusals did not consume the address's budget.
    expect(await t.container.counters.peek('login:address:10.1.0.4', window)).toBe(1);
    expect(await t.container.counters.peek('login:account:nobody@example.com', window)).toBe(10);
  });
});

describe.each(COUNTERS)('sign-up throttle per client address (%s counters)', { timeout: 60_000 }, (counters) => {
  const clock = manualClock('2026-11-21T10:50:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { SIGNUP_ADDRESS_LIMIT: '3', ...counterEnv(counters) }, { clock });
  });
  afterAll(async () => t?.close());

  const signup = (email: string, remoteAddress: string, password = PASSWORD) =>
    dashboard(t, 'POST', '/signup', { payload: { email, password }, remoteAddress });

  it('refuses the attempts past the limit with 429 before any work, per address and per hour', async () => {
    expect((await signup('first@example.com', '10.2.0.1')).statusCode).toBe(201);
    // Refused by the cheap checks (a weak password): not counted.
    expect((await signup('weak@example.com', '10.2.0.1', 'password')).statusCode).toBe(400);
    // Duplicates are attempts like any other (and cost no hashing).
    expect((await signup('first@example.com', '10.2.0.1')).statusCode).toBe(409);
    expect((await signup('first@example.com', '10.2.0.1')).statusCode).toBe(409);
    expectTooMany(await signup('new@example.com', '10.2.0.1'), 600);
    expect(await t.container.services.users.list(OPERATOR)).toHaveLength(1);
    // Another address has its own budget; the next hour starts a new one.
    expect((await signup('first@example.com', '10.2.0.2')).statusCode).toBe(409);
    clock.set('2026-11-21T11:00:00.000Z');
    expect((await signup('first@example.com', '10.2.0.1')).statusCode).toBe(409);
  });
});

describe('invite mode checks the code before creating anything', { timeout: 60_000 }, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { SIGNUP_MODE: 'invite' });
  });
  afterAll(async () => t?.close());

  it('a bad or missing code creates no user row (and no password is hashed for it)', async () => {
    const admin = await dashboard(t, 'POST', '/signup', {
      payload: { email: 'admin@example.com', password: PASSWORD },
    });
    expect(admin.statusCode).toBe(201);
    const rows = async () =>
      Number(
        (
          await t.container.database.db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await rows()).toBe(1);
    const forged = await dashboard(t, 'POST', '/signup', {
      payload: { email: 'guest@example.com', password: PASSWORD, invite_code: 'forged' },
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().details).toEqual({ invite_code: 'This invite code is not valid or was already used' });
    const missing = await dashboard(t, 'POST', '/signup', {
      payload: { email: 'guest@example.com', password: PASSWORD },
    });
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(missing.json().details)).toEqual(['invite_code']);
    expect(await rows()).toBe(1);
    expect(
      await t.container.database.db.selectFrom('users').where('email', '=', 'guest@example.com').selectAll().execute(),
    ).toEqual([]);

    // A real code still works, once.
    const code = (await dashboard(t, 'POST', '/admin/invites', { headers: { cookie: cookieOf(admin) } })).json().code;
    const ok = await dashboard(t, 'POST', '/signup', {
      payload: { email: 'guest@example.com', password: PASSWORD, invite_code: code },
    });
    expect(ok.statusCode).toBe(201);
    const reuse = await dashboard(t, 'POST', '/signup', {
      payload: { email: 'other@example.com', password: PASSWORD, invite_code: code },
    });
    expect(reuse.statusCode).toBe(400);
    expect(await rows()).toBe(2);
  });
});

describe.each(COUNTERS)('dashboard API budget per user (%s counters)', { timeout: 60_000 }, (counters) => {
  const clock = manualClock('2026-11-21T10:59:00.000Z');
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp(
      'sqlite',
      { DASHBOARD_RATE_LIMIT: '5', RATE_LIMIT_FREE: '7', ...counterEnv(counters) },
      { clock },
    );
    cookie = cookieOf(
      await dashboard(t, 'POST', '/signup', { payload: { email: 'dash@example.com', password: PASSWORD } }),
    );
  });
  afterAll(async () => t?.close());

  const nextHour = Date.parse('2026-11-21T11:00:00.000Z') / 1000;

  it('counts every signed-in request (account, keys and content routes) and answers 429 with the headers past it', async () => {
    const get = (url: string) => dashboard(t, 'GET', url, { headers: { cookie } });
    const urls = ['/me', '/keys', '/prompts', '/memories', '/artifacts'];
    for (const [i, url] of urls.entries()) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(4 - i));
      expect(res.headers['x-ratelimit-reset']).toBe(String(nextHour));
    }
    for (const url of ['/me', '/prompts']) {
      const over = await get(url);
      expectTooMany(over, 60);
      expect(over.headers['x-ratelimit-limit']).toBe('5');
      expect(over.headers['x-ratelimit-remaining']).toBe('0');
      expect(over.headers['x-ratelimit-reset']).toBe(String(nextHour));
    }
    // State changes are refused too; signing out always works.
    expectTooMany(
      await dashboard(t, 'POST', '/memories', { headers: { cookie }, payload: { text: 'over the budget' } }),
    );
    // The API keys' limit is a separate budget.
    const user = await t.container.services.users.requireByEmail(OPERATOR, 'dash@example.com');
    const { key } = await t.key(user.email, ['ai_tools']);
    const api = await t.request(key, { method: 'GET', url: '/api/v1/prompts' });
    expect(api.statusCode).toBe(200);
    expect(api.headers['x-ratelimit-limit']).toBe('7');
    // The next hour starts a new budget.
    clock.set('2026-11-21T11:00:00.000Z');
    const fresh = await get('/me');
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('signing out is never refused by the budget', async () => {
    clock.set('2026-11-21T12:00:00.000Z');
    const own = cookieOf(
      await dashboard(t, 'POST', '/signup', { payload: { email: 'leaver@example.com', password: PASSWORD } }),
    );
    for (let i = 0; i < 5; i++)
      expect((await dashboard(t, 'GET', '/me', { headers: { cookie: own } })).statusCode).toBe(200);
    expectTooMany(await dashboard(t, 'GET', '/me', { headers: { cookie: own } }));
    expect((await dashboard(t, 'POST', '/logout', { headers: { cookie: own } })).statusCode).toBe(200);
    expect((await dashboard(t, 'GET', '/me', { headers: { cookie: own } })).statusCode).toBe(401);
  });
});

describe.each(COUNTERS)('keys used on a surface their integrations do not allow (%s counters)', (counters) => {
  const clock = manualClock('2026-11-21T10:30:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { AUTH_FAILURE_LIMIT: '3', ...counterEnv(counters) }, { clock });
  });
  afterAll(async () => t?.close());

  it('count toward the address’s failed-authentication budget', async () => {
    const owner = await t.user({ integrations: ['marketplace'] });
    const full = await t.key(owner.email, ['ai_tools']);
    const from = (remoteAddress: string, key: string, url = '/api/v1/memories') =>
      t.app.inject({ method: 'GET', url, remoteAddress, headers: { authorization: `Bearer ${key}` } });
    // The marketplace key is valid but memories need ai_tools or cli: three failures, then 429.
    for (let i = 0; i < 3; i++) {
      const res = await from('10.3.0.1', owner.key);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toMatch(/ai_tools or cli/);
    }
    expectTooMany(await from('10.3.0.1', owner.key), 1800);
    // The address is blocked for every key now, even one that may use the surface.
    expectTooMany(await from('10.3.0.1', full.key));
    // The same mismatch over MCP counts as well, per address.
    const mcp = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: '/mcp/v1/common',
        remoteAddress,
        headers: {
          authorization: `Bearer ${full.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
    for (let i = 0; i < 3; i++) expect((await mcp('10.3.0.2')).statusCode).toBe(401);
    expectTooMany(await mcp('10.3.0.2'));
    // Other addresses are unaffected; the marketplace key still reads prompts where it is allowed.
    expect((await from('10.3.0.3', full.key)).statusCode).toBe(200);
    expect((await from('10.3.0.3', owner.key, '/api/v1/prompts')).statusCode).toBe(200);
  });
});
