import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { COUNTERS, counterEnv } from '../helpers/databases.js';

/**
 * JSON-RPC batches (allowed by MCP 2025-03-26; removed in 2025-06-18): every message counts against the
 * hourly limit, the whole batch is reserved at once, and a batch that does not fit is refused whole with
 * the usual 429 (nothing in it runs, nothing is consumed). In-process and Redis counters; injected clock.
 */
describe.each(COUNTERS)('MCP batches count every message (%s counters)', { timeout: 60_000 }, (counters) => {
  const clock = manualClock('2026-11-21T10:45:00.000Z');
  let t: TestApp;
  let user: Awaited<ReturnType<TestApp['user']>>;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { RATE_LIMIT_FREE: '120', ...counterEnv(counters) }, { clock });
    user = await t.user({ integrations: ['mcp_server'] });
  });
  afterAll(async () => t?.close());

  const nextHour = String(Date.parse('2026-11-21T11:00:00.000Z') / 1000);

  /** What a 2025-03-26 client sends after `initialize`: no MCP-Protocol-Version header (2025-06-18 added it). */
  const post = (payload: unknown): Promise<LightMyRequestResponse> =>
    t.request(user.key, {
      method: 'POST',
      url: '/mcp/v1/common',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify(payload),
    });
  const create = (id: number, text: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'svc_create_memory', arguments: { text } },
  });
  const batch = (size: number, label: string) => Array.from({ length: size }, (_, i) => create(i + 1, `${label} ${i}`));
  const memories = async () =>
    Number(
      (
        await t.container.database.db
          .selectFrom('memories')
          .where('user_id', '=', user.userId)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a 50-message batch of tool calls counts 50, shown in the rate-limit headers; one that does not fit is refused whole', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'batcher', version: '1.0.0' } },
    });
    expect(init.statusCode).toBe(200);
    expect(init.json().result.protocolVersion).toBe('2025-03-26');
    expect(init.headers['x-ratelimit-remaining']).toBe('119');

    const first = await post(batch(50, 'first'));
    expect(first.statusCode).toBe(200);
    const answers = first.json() as Array<{ id: number; result: { isError?: boolean } }>;
    expect(answers).toHaveLength(50);
    expect(answers.every((a) => a.result && !a.result.isError)).toBe(true);
    expect(first.headers['x-ratelimit-limit']).toBe('120');
    expect(first.headers['x-ratelimit-remaining']).toBe('69');
    expect(first.headers['x-ratelimit-reset']).toBe(nextHour);
    expect(await memories()).toBe(50);

    expect((await post(batch(50, 'second'))).headers['x-ratelimit-remaining']).toBe('19');
    expect(await memories()).toBe(100);

    // 50 more do not fit in the 19 left: refused whole, nothing runs, nothing is consumed.
    const refused = await post(batch(50, 'third'));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), retry_after: 900 });
    expect(refused.headers['retry-after']).toBe('900');
    expect(refused.headers['x-ratelimit-limit']).toBe('120');
    expect(refused.headers['x-ratelimit-remaining']).toBe('19');
    expect(refused.headers['x-ratelimit-reset']).toBe(nextHour);
    expect(await memories()).toBe(100);

    // Exactly what is left still fits; then the single next call is refused.
    const last = await post(batch(19, 'last'));
    expect(last.statusCode).toBe(200);
    expect(last.headers['x-ratelimit-remaining']).toBe('0');
    expect(await memories()).toBe(119);
    expect((await post(create(1, 'one too many'))).statusCode).toBe(429);
    expect(await memories()).toBe(119);

    // Key usage counts the messages too (120 counted + 2 refused requests).
    await t.container.usage.flush();
    const actor = { userId: user.userId, integrations: new Set<never>(), via: 'operator' as const };
    expect((await t.container.services.keys.list(actor)).find((k) => k.id === user.keyId)?.request_count).toBe(122);
  });

  it('a batch larger than the whole limit is refused outright, before anything runs', async () => {
    clock.set('2026-11-21T11:10:00.000Z');
    const before = await memories();
    const res = await post(batch(121, 'huge'));
    expect(res.statusCode).toBe(429);
    expect(res.headers['x-ratelimit-remaining']).toBe('120');
    expect(await memories()).toBe(before);
    // The next hour's budget is intact.
    const single = await post(create(1, 'fits'));
    expect(single.statusCode).toBe(200);
    expect(single.headers['x-ratelimit-remaining']).toBe('119');
  });
});
