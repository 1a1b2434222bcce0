import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { awayFromHourBoundary } from '../helpers/clock.js';
import { COUNTERS, counterEnv, DIALECTS } from '../helpers/databases.js';

const MATRIX = DIALECTS.flatMap((dialect) => COUNTERS.map((counters) => [dialect, counters] as const));

describe.each(MATRIX)('hourly rate limits (%s, %s counters)', (dialect, counters) => {
  const clock = manualClock('2026-11-21T10:59:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { RATE_LIMIT_FREE: '5', RATE_LIMIT_PRO: '8', ...counterEnv(counters) }, { clock });
  });
  afterAll(async () => t?.close());

  const list = (key: string) => t.request(key, { method: 'GET', url: '/api/v1/prompts' });
  const nextHour = Date.parse('2026-11-21T11:00:00.000Z') / 1000;

  it('puts limit, remaining and reset on every authenticated response, errors included', async () => {
    clock.set('2026-11-21T10:59:00.000Z');
    const { key } = await t.user();
    const ok = await list(key);
    expect(ok.headers['x-ratelimit-limit']).toBe('5');
    expect(ok.headers['x-ratelimit-remaining']).toBe('4');
    expect(ok.headers['x-ratelimit-reset']).toBe(String(nextHour));
    const notFound = await t.request(key, { method: 'GET', url: '/api/v1/prompts/missing' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['x-ratelimit-remaining']).toBe('3');
    const invalid = await t.request(key, { method: 'POST', url: '/api/v1/prompts', payload: {} });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('answers 429 with retry_after and Retry-After when the limit is reached, without consuming quota', async () => {
    clock.set('2026-11-21T10:59:00.000Z');
    const { key, keyId, userId } = await t.user();
    for (let i = 0; i < 5; i++) expect((await list(key)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      const res = await list(key);
      expect(res.statusCode).toBe(429);
      expect(res.json()).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), retry_after: 60 });
      expect(res.headers['retry-after']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(res.headers['x-ratelimit-limit']).toBe('5');
    }
    // 429s count as key usage.
    const actor = { userId, integrations: new Set<never>(), via: 'operator' as const };
    expect((await t.container.services.keys.list(actor)).find((k) => k.id === keyId)?.request_count).toBe(8);

    // The window resets at the top of the UTC hour, with the full limit.
    clock.set('2026-11-21T11:00:00.000Z');
    const fresh = await list(key);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('4');
    expect(fresh.headers['x-ratelimit-reset']).toBe(String(nextHour + 3600));
  });

  it('counts per user across all of the user’s keys', async () => {
    clock.set('2026-11-21T12:10:00.000Z');
    const owner = await t.user();
    const second = await t.key(owner.email, ['ai_tools']);
    for (let i = 0; i < 3; i++) expect((await list(owner.key)).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await list(second.key)).statusCode).toBe(200);
    expect((await list(second.key)).statusCode).toBe(429);
    expect((await list(owner.key)).statusCode).toBe(429);
    // Other users are unaffected.
    expect((await list((await t.user()).key)).statusCode).toBe(200);
  });

  it('uses the tier default unless the user has an override', async () => {
    clock.set('2026-11-21T13:10:00.000Z');
    const pro = await t.user({ tier: 'pro' });
    expect((await list(pro.key)).headers['x-ratelimit-limit']).toBe('8');
    const custom = await t.user({ rateLimit: 2 });
    expect((await list(custom.key)).headers['x-ratelimit-limit']).toBe('2');
    await t.container.services.users.update(OPERATOR, custom.email, { rateLimit: 50 });
    expect((await list(custom.key)).headers['x-ratelimit-limit']).toBe('50');
    await t.container.services.users.update(OPERATOR, custom.email, { rateLimit: null, tier: 'pro' });
    expect((await list(custom.key)).headers['x-ratelimit-limit']).toBe('8');
  });
});

describe.each(COUNTERS)('rate limits under a concurrent burst over real HTTP (%s counters)', (counters) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { RATE_LIMIT_FREE: '40', ...counterEnv(counters) });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  it('admits exactly the limit', async () => {
    await awayFromHourBoundary(10_000); // real clock: the burst must fall in one hour's window
    const { key } = await t.user();
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${base}/api/v1/prompts`, { headers: { authorization: `Bearer ${key}` } }).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      ),
    );
    expect(responses.filter((s) => s === 200)).toHaveLength(40);
    expect(responses.filter((s) => s === 429)).toHaveLength(60);
  });
});
