import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEventFromAudit } from '../../src/domain/webhooks/webhook-events.js';
import { createStores } from '../../src/storage/stores.js';
import { enqueueWebhookEvent } from '../../src/storage/webhook-store.js';
import { createDispatcher } from '../../src/webhooks/dispatcher.js';
import { createHttpSender } from '../../src/webhooks/http-sender.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';
import { Receiver } from '../helpers/webhook-receiver.js';

/** The documented recipe (docs/webhooks.md), written again here: never the server's own signer. */
function verify(secret: string, header: string, body: string) {
  const fields = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${fields.t}.${body}`).digest('hex');
  return { ok: expected === fields.v1, t: Number(fields.t) };
}

describe.each(DIALECTS)('webhooks over real stores and a real receiver (%s)', (dialect) => {
  let t: TestApp;
  let receiver: Receiver;
  const clock = manualClock('2026-11-24T10:00:00.000Z');
  let user: Awaited<ReturnType<TestApp['user']>>;
  const api = (method: string, url: string, payload?: unknown, key = user.key) =>
    t.request(key, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload !== undefined && { payload: payload as Json }),
    });
  const run = () => t.container.dispatcher.runOnce();

  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await createTestApp(
      dialect,
      {
        WEBHOOK_WORKER: 'false',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_DISABLE_AFTER_FAILURES: '3',
        WEBHOOK_MAX_ATTEMPTS: '5',
        WEBHOOK_RETRY_BASE_MS: '1000',
        WEBHOOK_MAX_ENDPOINTS: '3',
      },
      { clock, random: () => 0 },
    );
    user = await t.user();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function createHook(events: string[], url = receiver.url, key = user.key) {
    const response = await api('POST', '/webhooks', { url, events, description: 'test' }, key);
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; secret: string };
  }

  it('registers an endpoint, shows the secret once, and scopes it to its user', async () => {
    const response = await api('POST', '/webhooks', { url: receiver.url, events: ['memory.created'] });
    expect(response.statusCode).toBe(201);
    const created = response.json();
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    expect(response.headers.location).toBe(`/api/v1/webhooks/${created.id}`);
    expect(created).toMatchObject({ url: receiver.url, events: ['memory.created'], enabled: true });
    const listed = (await api('GET', '/webhooks')).json();
    expect(listed.webhooks.map((w: Json) => w.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect((await api('GET', `/webhooks/${created.id}`)).json().secret).toBeUndefined();
    const other = await t.user();
    expect((await api('GET', `/webhooks/${created.id}`, undefined, other.key)).statusCode).toBe(404);
    expect((await api('POST', `/webhooks/${created.id}/test`, undefined, other.key)).statusCode).toBe(404);
    expect((await api('DELETE', `/webhooks/${created.id}`, undefined, other.key)).statusCode).toBe(404);
    expect((await api('DELETE', `/webhooks/${created.id}`)).statusCode).toBe(200);
    expect((await api('GET', `/webhooks/${created.id}`)).statusCode).toBe(404);
  });

  it('turns every audited change into its event, with the audit row id, and a failed change into none', async () => {
    const owner = await t.user();
    const hook = await createHook(
      ['prompt.created', 'prompt.updated', 'environment.moved', 'memory.updated', 'memory.deleted'],
      receiver.url,
      owner.key,
    );
    const call = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
      t.request(owner.key, {
        method: method as 'GET',
        url: `/api/v1${url}`,
        headers,
        ...(payload !== undefined && { payload: payload as Json }),
      });
    expect((await call('POST', '/prompts', { title: 'Hooked', content: 'v1' })).statusCode).toBe(201);
    expect((await call('PUT', '/prompts/hooked', { content: 'v2' })).statusCode).toBe(200);
    // A refused change (stale If-Match) records nothing and sends nothing.
    expect((await call('PUT', '/prompts/hooked', { content: 'v3' }, { 'if-match': '"1"' })).statusCode).toBe(412);
    expect((await call('PUT', '/prompts/hooked/environments/production', { version: 1 })).statusCode).toBe(200);
    const memory = (await call('POST', '/memories', { text: 'Hooked memory' })).json() as { memory_id: string };
    expect((await call('PUT', `/memories/${memory.memory_id}`, { text: 'Hooked memory, edited' })).statusCode).toBe(
      200,
    );
    expect((await call('DELETE', `/memories/${memory.memory_id}`)).statusCode).toBe(200);

    const before = receiver.received.length;
    expect(await run()).toBe(5);
    const got = receiver.received.slice(before).map((r) => JSON.parse(r.body) as Json);
    expect(got.map((event) => event.type).sort()).toEqual([
      'environment.moved',
      'memory.deleted',
      'memory.updated',
      'prompt.created',
      'prompt.updated',
    ]);
    for (const r of receiver.received.slice(before)) {
      expect(verify(hook.secret, String(r.headers['cairn-signature']), r.body).ok).toBe(true);
    }
    // Each event is the audit row of its change: same id, same object.
    const audit = (await call('GET', '/audit?per_page=50')).json() as { events: Json[] };
    for (const event of got) {
      const row = audit.events.find((e) => e.id === event.id);
      expect(row, `audit row of ${event.type}`).toBeDefined();
    }
    expect(audit.events.filter((e) => e.object_type === 'prompt' && e.action === 'updated')).toHaveLength(1);
  });

  it('refuses bad input and more endpoints than the limit', async () => {
    for (const [body, field] of [
      [{ url: 'ftp://example.com/x', events: ['memory.created'] }, 'url'],
      [{ url: 'https://user:pw@example.com/x', events: ['memory.created'] }, 'url'],
      [{ url: 'not a url', events: ['memory.created'] }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2100)}`, events: ['memory.created'] }, 'url'],
      [{ url: 'https://example.com/x', events: ['memory.exploded'] }, 'events.0'],
      [{ url: 'https://example.com/x', events: [] }, 'events'],
      [{ url: 'https://example.com/x', events: ['memory.created'], secret: 'mine' }, 'secret'],
    ] as const) {
      const response = await api('POST', '/webhooks', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(response.json().details)).toContain(field);
    }
    const owner = await t.user();
    for (let i = 0; i < 3; i++) await createHook(['memory.created'], receiver.url, owner.key);
    const over = await api('POST', '/webhooks', { url: receiver.url, events: ['memory.created'] }, owner.key);
    expect(over.statusCode).toBe(409);
  });

  it('sends a test event signed as documented (verified independently with node:crypto)', async () => {
    const hook = await createHook(['prompt.created']);
    const queued = await api('POST', `/webhooks/${hook.id}/test`);
    expect(queued.statusCode).toBe(202);
    const { event_id } = queued.json();
    const before = receiver.received.length;
    expect(await run()).toBe(1);
    const got = receiver.received[before];
    if (!got) throw new Error('nothing received');
    expect(got.headers['cairn-event-id']).toBe(event_id);
    expect(got.headers['cairn-event-type']).toBe('webhook.test');
    expect(got.headers['content-type']).toBe('application/json');
    const signature = verify(hook.secret, String(got.headers['cairn-signature']), got.body);
    expect(signature.ok).toBe(true);
    expect(signature.t).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(verify('whsec_wrong', String(got.headers['cairn-signature']), got.body).ok).toBe(false);
    expect(verify(hook.secret, String(got.headers['cairn-signature']), `${got.body} `).ok).toBe(false);
    expect(JSON.parse(got.body)).toEqual({
      id: event_id,
      type: 'webhook.test',
      occurred_at: clock.now().toISOString(),
      object: { type: 'webhook', id: hook.id, handle: null },
      actor: { key_id: user.keyId, surface: 'rest' },
    });
    const log = (await api('GET', `/webhooks/${hook.id}/attempts`)).json();
    expect(log.attempts[0]).toMatchObject({ event_id, outcome: 'succeeded', status_code: 200, attempt: 1 });
  });

  it('delivers memory.created only to endpoints subscribed to it, retrying with backoff until the receiver recovers', async () => {
    const me = await t.user();
    const subscribed = await createHook(['memory.created'], receiver.url, me.key);
    await createHook(['prompt.created'], receiver.url, me.key);
    const start = receiver.received.length;
    receiver.respond = (_request, index) => (index < start + 2 ? 500 : 200);
    const created = await api('POST', '/memories', { text: 'Webhooks hear about this' }, me.key);
    expect(created.statusCode).toBe(201);
    const memoryId = created.json().memory_id;

    expect(await run()).toBe(1); // attempt 1: 500
    expect(await run()).toBe(0); // not due yet (the clock has not moved)
    clock.advance(500); // base 1000 ms, attempt 1, jitter 0 → 500 ms
    expect(await run()).toBe(1); // attempt 2: 500
    clock.advance(999); // attempt 2 → 1000 ms: one short
    expect(await run()).toBe(0);
    clock.advance(1);
    expect(await run()).toBe(1); // attempt 3: 200
    const mine = receiver.received.slice(start);
    expect(mine).toHaveLength(3);
    expect(new Set(mine.map((r) => r.headers['cairn-event-id'])).size).toBe(1);
    expect(mine.map((r) => r.headers['cairn-delivery-attempt'])).toEqual(['1', '2', '3']);
    for (const r of mine) expect(verify(subscribed.secret, String(r.headers['cairn-signature']), r.body).ok).toBe(true);
    expect(JSON.parse(mine[0]?.body ?? '{}')).toMatchObject({
      type: 'memory.created',
      object: { type: 'memory', id: memoryId },
    });

    const log = (await api('GET', `/webhooks/${subscribed.id}/attempts`, undefined, me.key)).json();
    expect(log.attempts.map((a: Json) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [3, 'succeeded', 200],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    const deliveries = (await api('GET', `/webhooks/${subscribed.id}/deliveries`, undefined, me.key)).json();
    expect(deliveries.deliveries).toMatchObject([{ status: 'succeeded', attempts: 3, last_status_code: 200 }]);
    expect((await api('GET', `/webhooks/${subscribed.id}`, undefined, me.key)).json().consecutive_failures).toBe(0);
    receiver.respond = () => 200;
  });

  it('disables an endpoint after repeated failures, with a reason, until it is enabled again', async () => {
    const me = await t.user();
    const hook = await createHook(['memory.created'], receiver.url, me.key);
    receiver.respond = () => 503;
    for (let i = 0; i < 3; i++) {
      expect((await api('POST', '/memories', { text: `failing ${i}` }, me.key)).statusCode).toBe(201);
    }
    await run(); // three deliveries, three failures
    const disabled = (await api('GET', `/webhooks/${hook.id}`, undefined, me.key)).json();
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabled_reason).toMatch(/after 3 consecutive failed deliveries \(last: HTTP 503\)/);
    expect((await api('POST', `/webhooks/${hook.id}/test`, undefined, me.key)).statusCode).toBe(409);
    // Nothing is sent to a disabled endpoint, however long one waits.
    clock.advance(3_600_000);
    const before = receiver.received.length;
    expect(await run()).toBe(0);
    expect(receiver.received.length).toBe(before);
    receiver.respond = () => 200;
    const enabled = (await api('PUT', `/webhooks/${hook.id}`, { enabled: true }, me.key)).json();
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
    expect(await run()).toBe(3); // the queued retries go out
  });

  it('enqueueWebhookEvent: one row per enabled subscribed endpoint of the user, inside the caller’s transaction', async () => {
    const me = await t.user();
    const other = await t.user();
    const a = await createHook(['key.revoked', 'memory.created'], receiver.url, me.key);
    const b = await createHook(['key.revoked'], receiver.url, me.key);
    const off = await createHook(['key.revoked'], receiver.url, me.key);
    expect((await api('PUT', `/webhooks/${off.id}`, { enabled: false }, me.key)).statusCode).toBe(200);
    await createHook(['key.revoked'], receiver.url, other.key);
    const event = webhookEventFromAudit({
      id: 'aud_01KAAAAAAAAAAAAAAAAAAAAAAA',
      userId: me.userId,
      objectType: 'key',
      objectId: me.keyId,
      handle: 'laptop',
      action: 'revoke',
      at: clock.now().toISOString(),
      keyId: null,
      surface: 'dashboard',
    });
    if (!event) throw new Error('no event');
    expect(event).toMatchObject({ id: 'evt_01KAAAAAAAAAAAAAAAAAAAAAAA', type: 'key.revoked' });
    const db = t.container.database.db;
    // Rolled back with the change it reports: nothing queued.
    await expect(
      db.transaction().execute(async (trx) => {
        expect(await enqueueWebhookEvent(trx, event)).toBe(2);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const queued = () =>
      db.selectFrom('webhook_deliveries').select('endpoint_id').where('event_id', '=', event.id).execute();
    expect(await queued()).toEqual([]);
    expect(await db.transaction().execute((trx) => enqueueWebhookEvent(trx, event))).toBe(2);
    expect(await db.transaction().execute((trx) => enqueueWebhookEvent(trx, event))).toBe(0); // same event: once
    expect((await queued()).map((row) => row.endpoint_id).sort()).toEqual([a.id, b.id].sort());
    expect(webhookEventFromAudit({ userId: me.userId, objectType: 'session', objectId: 'x', action: 'create' })).toBe(
      null,
    );
    expect(webhookEventFromAudit({ userId: me.userId, objectType: 'key', objectId: 'k', action: 'delete' })).toBe(null);
    expect(
      webhookEventFromAudit({ userId: me.userId, objectType: 'environment', objectId: 'e', action: 'move' })?.type,
    ).toBe('environment.moved');
    await run();
  });

  it('stops cleanly: a send in flight is aborted and its delivery released, due again at once', async () => {
    const me = await t.user();
    let arrived = 0;
    const silent = createServer(() => {
      arrived++; // never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/`;
      const hook = await createHook(['memory.created'], url, me.key);
      expect((await api('POST', `/webhooks/${hook.id}/test`, undefined, me.key)).statusCode).toBe(202);
      const store = createStores(t.container.database).webhooks;
      const worker = createDispatcher({
        store,
        send: createHttpSender({ timeoutMs: 60_000, allowPrivateNetworks: true }),
        clock,
        schedule: { baseMs: 1000, maxMs: 1000, maxAttempts: 5 },
        disableAfter: 3,
        pollIntervalMs: 1000,
        batchSize: 10,
        leaseMs: 62_000,
        retentionMs: 30 * 86_400_000,
      });
      const round = worker.runOnce();
      for (let i = 0; arrived === 0; i++) {
        if (i > 6000) throw new Error('the request never arrived');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await worker.stop(); // returns without waiting 60 s for the receiver
      expect(await round).toBe(1);
      const [delivery] = (await api('GET', `/webhooks/${hook.id}/deliveries`, undefined, me.key)).json().deliveries;
      expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
      expect((await api('GET', `/webhooks/${hook.id}/attempts`, undefined, me.key)).json().total).toBe(0);
      expect(await store.hasDue(clock.now().toISOString())).toBe(true); // no lease left to wait out
      expect((await api('DELETE', `/webhooks/${hook.id}`, undefined, me.key)).statusCode).toBe(200);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('prunes settled deliveries and log rows past the retention, keeping pending ones', async () => {
    const me = await t.user();
    const hook = await createHook(['memory.created'], receiver.url, me.key);
    receiver.respond = () => 200;
    expect((await api('POST', `/webhooks/${hook.id}/test`, undefined, me.key)).statusCode).toBe(202);
    expect(await run()).toBe(1);
    const old = clock.now().toISOString();
    clock.advance(1000);
    expect((await api('POST', `/webhooks/${hook.id}/test`, undefined, me.key)).statusCode).toBe(202); // pending
    const store = createStores(t.container.database).webhooks;
    const mine = async () => ({
      deliveries: (await api('GET', `/webhooks/${hook.id}/deliveries`, undefined, me.key)).json().total,
      attempts: (await api('GET', `/webhooks/${hook.id}/attempts`, undefined, me.key)).json().total,
    });
    await store.prune(old, 1000); // (earlier tests' rows are older and go)
    expect(await mine()).toEqual({ deliveries: 2, attempts: 1 }); // nothing of this hook is strictly older
    clock.advance(1);
    expect(await store.prune(clock.now().toISOString(), 1000)).toBeGreaterThanOrEqual(2); // its attempt and delivery (and older ones)
    expect(await mine()).toEqual({ deliveries: 1, attempts: 0 });
    const deliveries = (await api('GET', `/webhooks/${hook.id}/deliveries`, undefined, me.key)).json();
    expect(deliveries.deliveries).toMatchObject([{ status: 'pending' }]);
    expect((await api('GET', `/webhooks/${hook.id}/attempts`, undefined, me.key)).json().total).toBe(0);
    expect(await run()).toBe(1);
  });
});

describe.each(DIALECTS)('webhook SSRF guard (%s)', (dialect) => {
  let t: TestApp;
  let receiver: Receiver;
  let key: string;
  let resolutions = 0;
  const names: Record<string, string[]> = {
    'intranet.test': ['10.1.2.3'],
    'metadata.test': ['169.254.169.254'],
    'dual.test': ['93.184.216.34', 'fd00::1'],
    'public.test': ['93.184.216.34'],
  };

  beforeAll(async () => {
    receiver = await Receiver.start();
    const port = new URL(receiver.url).port;
    t = await createTestApp(
      dialect,
      { WEBHOOK_WORKER: 'false' },
      {
        resolveHost: async (host) => {
          if (host === 'localhost') return ['127.0.0.1', '::1'];
          // DNS rebinding: public when registered, the receiver's loopback address afterwards.
          if (host === 'rebind.test') return resolutions++ === 0 ? ['93.184.216.34'] : ['127.0.0.1'];
          const found = names[host];
          if (!found) throw new Error(`ENOTFOUND ${host} (port ${port})`);
          return found;
        },
      },
    );
    key = (await t.user()).key;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const register = (url: string) =>
    t.request(key, { method: 'POST', url: '/api/v1/webhooks', payload: { url, events: ['memory.created'] } });

  it.each([
    'http://127.0.0.1/x',
    'http://127.1.2.3:8080/x',
    'http://0.0.0.0/x',
    'http://10.0.0.1/x',
    'http://172.16.0.1/x',
    'http://172.31.255.255/x',
    'http://192.168.1.1/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/x',
    'http://[fc00::1]/x',
    'http://[fd12:3456::1]/x',
    'http://[fe80::1]/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://[::ffff:a00:1]/x',
    'http://[::ffff:192.168.0.1]/x',
    'http://2130706433/x', // 127.0.0.1 as one number (the URL parser normalises it)
    'http://0x7f.1/x',
    'http://localhost/x',
    'http://intranet.test/x',
    'http://metadata.test/x',
    'http://dual.test/x',
  ])('refuses %s at registration', async (url) => {
    const response = await register(url);
    expect(response.statusCode).toBe(400);
    expect(response.json().details.url).toMatch(/Refused/);
  });

  it('accepts public addresses and names, and refuses a name that does not resolve', async () => {
    const publicAddress = await register('https://93.184.216.34/hook');
    expect(publicAddress.statusCode, publicAddress.body).toBe(201);
    expect((await register('https://public.test/hook')).statusCode).toBe(201);
    expect((await register('https://172.32.0.1/hook')).statusCode).toBe(201); // just outside 172.16/12
    const missing = await register('https://nowhere.test/hook');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details.url).toMatch(/does not resolve/);
  });

  it('checks the resolved address again at delivery (DNS rebinding) and never connects', async () => {
    const port = new URL(receiver.url).port;
    const created = await register(`http://rebind.test:${port}/hook`);
    expect(created.statusCode).toBe(201);
    const { id } = created.json();
    expect((await t.request(key, { method: 'POST', url: `/api/v1/webhooks/${id}/test` })).statusCode).toBe(202);
    await t.container.dispatcher.runOnce();
    expect(receiver.received).toHaveLength(0);
    const log = (await t.request(key, { method: 'GET', url: `/api/v1/webhooks/${id}/attempts` })).json();
    expect(log.attempts[0]).toMatchObject({ outcome: 'failed', status_code: null });
    expect(log.attempts[0].error).toMatch(/Refused/);
  });
});
