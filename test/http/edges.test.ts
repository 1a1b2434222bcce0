import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Container, createContainer } from '../../src/container.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { buildApp } from '../../src/http/app.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { COUNTERS, counterEnv, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

/** A deferred the test settles by hand: how a test route is kept "busy" without wall-clock timing. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A server on a real socket, with test-only routes added before it starts (never in production code). */
async function listeningApp(env: Record<string, string>, addRoutes: (app: FastifyInstance) => void = () => {}) {
  const database: TestDatabase = await createTestDatabase('sqlite');
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    USAGE_FLUSH_INTERVAL_MS: '3600000',
    ...env,
  });
  const container: Container = await createContainer(config);
  const app = await buildApp(container, { logger: false });
  // A plugin: a bare route added this late stalls start-up.
  await app.register((plugin, _options, done) => {
    addRoutes(plugin);
    done();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    container,
    port,
    base: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await container.close();
      await database.drop();
    },
  };
}

interface RawConnection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with everything received once the server has closed the connection. */
  closed: Promise<string>;
}

/** A raw TCP connection, so that a test can be the slow client a `fetch` never is. */
function rawConnection(port: number): RawConnection {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    data += chunk;
  });
  socket.on('error', () => undefined); // a reset by the server is one of the outcomes under test
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
  return { socket, received: () => data, closed };
}

/** Writes `chunk` every `everyMs` until the server closes the connection (or `max` chunks, as a guard). */
function dribble(connection: RawConnection, chunk: string, everyMs: number, max = 400) {
  let sent = 0;
  const timer = setInterval(() => {
    if (connection.socket.destroyed || ++sent > max) return clearInterval(timer);
    connection.socket.write(chunk);
  }, everyMs);
  void connection.closed.then(() => clearInterval(timer));
}

/** Status line and parsed JSON body of a raw HTTP/1.1 response with a Content-Length body. */
function parseResponse(raw: string): { status: number; headers: string; body: Json } {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end);
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
  return { status, headers: head.toLowerCase(), body: JSON.parse(raw.slice(end + 4)) };
}

async function waitUntil(condition: () => boolean, what: string, limitMs = 15_000) {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('timeouts for slow clients and slow requests (real sockets)', () => {
  let server: Awaited<ReturnType<typeof listeningApp>>;
  let busy = deferred();
  let lateReplies = 0;
  let key: string;

  beforeAll(async () => {
    server = await listeningApp(
      {
        HEADERS_TIMEOUT_MS: '300',
        // Tiny on purpose: /healthz and the test routes answer within the tick they are routed in, so
        // only a handler that really waits can run out of it.
        REQUEST_TIMEOUT_MS: '50',
        IDLE_TIMEOUT_MS: '3000', // well above the pause in the slow-import test below
        STREAM_TIMEOUT_MS: '60000',
        KEEP_ALIVE_TIMEOUT_MS: '200',
      },
      (app) => {
        app.get('/test/busy', async () => {
          await busy.promise;
          lateReplies++;
          return { late: true };
        });
        app.get('/test/busy-failing', async () => {
          await busy.promise;
          lateReplies++;
          throw new Error('failed after its budget');
        });
        app.post('/test/echo', async (request) => ({ got: request.body }));
      },
    );
    const user = await server.container.services.users.create(OPERATOR, { email: 'edges@example.com', tier: 'free' });
    const created = await server.container.services.keys.create(
      { userId: user.id, integrations: new Set(['cli']), via: 'operator' },
      { name: 'edges', integrations: ['cli'] },
    );
    key = created.key;
  });
  afterAll(async () => server?.close());

  const healthy = async () => {
    const res = await fetch(`${server.base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  };

  it('answers a handler that overruns the per-request budget with a 503 in the error shape, and survives its late reply', async () => {
    busy = deferred();
    for (const path of ['/test/busy', '/test/busy-failing']) {
      const res = await fetch(`${server.base}${path}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.json()).toEqual({
        error: 'service_unavailable',
        message: 'The request took too long; retry shortly',
      });
    }
    // The handlers finish after their 503 was sent: one returns a value, the other throws.
    busy.resolve();
    await waitUntil(() => lateReplies === 2, 'the late handlers');
    await healthy();
    // The same route answers normally when it does not wait.
    const res = await fetch(`${server.base}/test/busy`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ late: true });
  });

  it('cuts off a client that sends its headers slowly (slowloris) with a 408 and closes the connection', async () => {
    const client = rawConnection(server.port);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    dribble(client, 'X-Slow: 1\r\n', 40);
    const raw = await client.closed;
    const res = parseResponse(raw);
    expect(res.status).toBe(408);
    expect(res.headers).toContain('connection: close');
    expect(res.body).toEqual({ error: 'request_timeout', message: 'The request was not received in time' });
    await healthy();
  });

  it('cuts off a client that connects and sends nothing', async () => {
    const client = rawConnection(server.port);
    const raw = await client.closed;
    // Node counts an empty connection against the headers timeout too; nothing or a 408 are both a cut-off.
    if (raw !== '') expect(parseResponse(raw).status).toBe(408);
    await healthy();
  });

  it('answers a client that sends its body slowly with a 408 and closes the connection', async () => {
    const client = rawConnection(server.port);
    client.socket.write(
      'POST /test/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":"',
    );
    dribble(client, 'a', 20);
    const res = parseResponse(await client.closed);
    expect(res.status).toBe(408);
    expect(res.headers).toContain('connection: close');
    expect(res.headers).toContain('x-request-id: ');
    expect(res.body).toEqual({ error: 'request_timeout', message: 'The request was not received in time' });
    await healthy();
  });

  it('gives an unknown route the same budget: a slow body there gets a 408 too', async () => {
    const client = rawConnection(server.port);
    client.socket.write(
      'POST /no/such/route HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
    );
    dribble(client, ' ', 20);
    const res = parseResponse(await client.closed);
    expect(res.status).toBe(408);
    expect(res.body.error).toBe('request_timeout');
  });

  it('closes the connection when it answers before the body was read, instead of draining it', async () => {
    const client = rawConnection(server.port);
    // No key: refused in onRequest, before the body is read; the rest of the body is never waited for.
    client.socket.write(
      'POST /api/v1/prompts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":',
    );
    const res = parseResponse(await client.closed);
    expect(res.status).toBe(401);
    expect(res.headers).toContain('connection: close');
    expect(res.body.error).toBe('unauthorized');
  });

  it('answers bytes that are not HTTP with a 400 in the error shape', async () => {
    const client = rawConnection(server.port);
    client.socket.write('NOT HTTP AT ALL\r\n\r\n');
    const res = parseResponse(await client.closed);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_error', message: 'Malformed HTTP request' });
  });

  it('answers a header block over node’s size limit with a 431 in the error shape', async () => {
    const client = rawConnection(server.port);
    client.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const res = parseResponse(await client.closed);
    expect(res.status).toBe(431);
    expect(res.body).toMatchObject({ error: 'validation_error', message: 'Request headers are too large' });
  });

  it('closes an idle keep-alive connection', async () => {
    const client = rawConnection(server.port);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await waitUntil(() => client.received().includes('{"status":"ok"}'), 'the first response');
    expect(client.received().toLowerCase()).toContain('keep-alive');
    // Nothing more is sent: the server closes the connection by itself.
    const raw = await client.closed;
    expect(raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('gives bundle import the stream budget: an upload slower than the per-request budget still succeeds', async () => {
    const exported = await fetch(`${server.base}/api/v1/export`, { headers: { authorization: `Bearer ${key}` } });
    expect(exported.status).toBe(200);
    const bundle = await exported.text();
    const client = rawConnection(server.port);
    client.socket.write(
      `POST /api/v1/import?dry_run=true HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/x-ndjson\r\nContent-Length: ${Buffer.byteLength(bundle)}\r\nConnection: close\r\n\r\n`,
    );
    const half = Math.floor(bundle.length / 2);
    client.socket.write(bundle.slice(0, half));
    await sleep(150); // three times the per-request budget (and far under the idle timeout)
    client.socket.write(bundle.slice(half));
    const res = parseResponse(await client.closed);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ dry_run: true });
  });

  it('closes an import whose upload stalls (idle timeout) without hurting the server', async () => {
    const client = rawConnection(server.port);
    client.socket.write(
      `POST /api/v1/import HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/x-ndjson\r\nContent-Length: 100000\r\n\r\n{"type":',
    );
    const raw = await client.closed;
    expect(raw).not.toContain(' 200 ');
    await healthy();
  });
});

describe.each(COUNTERS)('TRUST_PROXY decides whose address the failed-auth budget counts (%s counters)', (counters) => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });
  const appWith = async (trustProxy: string | undefined) => {
    // A clock of the test's own: the hourly failure window never rolls over mid-test.
    const t = await createTestApp(
      'sqlite',
      {
        AUTH_FAILURE_LIMIT: '2',
        ...counterEnv(counters),
        ...(trustProxy !== undefined && { TRUST_PROXY: trustProxy }),
      },
      { clock: manualClock() },
    );
    apps.push(t);
    return t;
  };
  /** A request with a wrong key from socket address `from`, carrying `forwardedFor` if given. */
  const badKey = (t: TestApp, from: string, forwardedFor?: string) =>
    t.app
      .inject({
        method: 'GET',
        url: '/api/v1/prompts',
        remoteAddress: from,
        headers: {
          authorization: 'Bearer wrong',
          ...(forwardedFor !== undefined && { 'x-forwarded-for': forwardedFor }),
        },
      })
      .then((res) => res.statusCode);

  it('unset: a spoofed X-Forwarded-For is ignored; failures count against the socket address', async () => {
    const t = await appWith(undefined);
    expect(await badKey(t, '192.0.2.10', '203.0.113.1')).toBe(401);
    expect(await badKey(t, '192.0.2.10', '203.0.113.2')).toBe(401);
    expect(await badKey(t, '192.0.2.10', '203.0.113.3')).toBe(429);
    expect(await badKey(t, '192.0.2.10')).toBe(429);
    // Another socket address has its own budget.
    expect(await badKey(t, '192.0.2.11', '203.0.113.3')).toBe(401);
  });

  it('1 hop: the client is the last X-Forwarded-For entry; entries before it are the client’s own words', async () => {
    const t = await appWith('1');
    expect(await badKey(t, '127.0.0.1', '198.51.100.1, 203.0.113.9')).toBe(401);
    expect(await badKey(t, '127.0.0.1', 'anything, 203.0.113.9')).toBe(401);
    expect(await badKey(t, '127.0.0.1', '198.51.100.99, 203.0.113.9')).toBe(429);
    // Another client behind the same proxy is not affected.
    expect(await badKey(t, '127.0.0.1', '203.0.113.10')).toBe(401);
    // Two-hop spoofing does not reach past the one trusted hop.
    expect(await badKey(t, '127.0.0.1', '203.0.113.10, 203.0.113.9')).toBe(429);
  });

  it('CIDR list: only a proxy inside it is believed, hop by hop', async () => {
    const t = await appWith('10.0.0.0/8, fd00::/8');
    // From a trusted proxy: counted against the forwarded address.
    expect(await badKey(t, '10.1.2.3', '203.0.113.20')).toBe(401);
    expect(await badKey(t, '10.200.0.1', '203.0.113.20')).toBe(401);
    expect(await badKey(t, 'fd00::5', '203.0.113.20')).toBe(429);
    // From outside the list: the header is ignored, the socket address counts.
    expect(await badKey(t, '192.0.2.7', '203.0.113.21')).toBe(401);
    expect(await badKey(t, '192.0.2.7', '203.0.113.22')).toBe(401);
    expect(await badKey(t, '192.0.2.7', '203.0.113.23')).toBe(429);
    expect(await badKey(t, '10.1.2.3', '203.0.113.23')).toBe(401);
    // Two trusted proxies in a row: the client is the first untrusted address walking back.
    expect(await badKey(t, '10.1.2.3', '203.0.113.30, 10.9.9.9')).toBe(401);
    expect(await badKey(t, '10.1.2.3', '203.0.113.30')).toBe(401);
    expect(await badKey(t, '10.1.2.3', '198.51.100.1, 203.0.113.30, 10.9.9.9')).toBe(429);
  });

  it('names: loopback trusts a proxy on the same machine only', async () => {
    const t = await appWith('loopback');
    expect(await badKey(t, '127.0.0.1', '203.0.113.40')).toBe(401);
    expect(await badKey(t, '::1', '203.0.113.40')).toBe(401);
    expect(await badKey(t, '127.0.0.1', '203.0.113.40')).toBe(429);
    expect(await badKey(t, '192.0.2.50', '203.0.113.41')).toBe(401);
    expect(await badKey(t, '192.0.2.50', '203.0.113.42')).toBe(401);
    expect(await badKey(t, '192.0.2.50', '203.0.113.43')).toBe(429);
  });
});
