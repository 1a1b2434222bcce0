import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';

/** A private redis-server, so stopping it disturbs nothing else. */
async function startRedis(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const { Redis } = await import('ioredis');
  for (let i = 0; i < 100; i++) {
    const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return server;
    } catch {
      probe.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error('redis-server did not start');
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe('Redis stopped and restarted', () => {
  let t: TestApp;
  let redis: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await createTestApp('sqlite', { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_FREE: '1000' });
  });
  afterAll(async () => {
    await t?.close();
    if (redis) await stop(redis);
  });

  it('keeps serving while Redis is down (limits fail open) and counts again once it is back', async () => {
    const { key } = await t.user();
    const list = () => t.request(key, { method: 'GET', url: '/api/v1/prompts' });
    const remaining = async () => Number((await list()).headers['x-ratelimit-remaining']);

    expect(await remaining()).toBe(999);
    expect(await remaining()).toBe(998);

    await stop(redis);
    for (let i = 0; i < 5; i++) {
      const res = await list();
      expect(res.statusCode).toBe(200);
      // Failing open: the request is admitted and the window looks untouched.
      expect(res.headers['x-ratelimit-remaining']).toBe('1000');
    }

    redis = await startRedis(port);
    // The client reconnects by itself (retry at most every 2 s); counting starts again in a fresh Redis.
    const deadline = Date.now() + 10_000;
    let value = 1000;
    while (Date.now() < deadline) {
      value = await remaining();
      if (value < 1000) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(value).toBe(999);
    expect(await remaining()).toBe(998);
  }, 30_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL connections terminated and refused', () => {
  let t: TestApp;
  let admin: import('pg').Client;
  let database: string;

  beforeAll(async () => {
    t = await createTestApp('postgres');
    database = new URL(t.database.url).pathname.slice(1);
    const { default: pg } = await import('pg');
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.query(`alter database ${database} allow_connections true`).catch(() => undefined);
    await admin?.end();
    await t?.close();
  });

  it('answers 503 with Retry-After while the database is unreachable and recovers by itself', async () => {
    const { key } = await t.user();
    const list = () => t.request(key, { method: 'GET', url: '/api/v1/prompts' });
    expect((await list()).statusCode).toBe(200);

    // Every open connection killed, and no new one accepted.
    await admin.query(`alter database ${database} allow_connections false`);
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [database],
    );
    const down = await list();
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ error: 'service_unavailable' });
    expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
    expect((await t.request(undefined, { method: 'GET', url: '/readyz' })).statusCode).toBe(503);

    await admin.query(`alter database ${database} allow_connections true`);
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await list()).statusCode;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect((await t.request(undefined, { method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  }, 30_000);
});
