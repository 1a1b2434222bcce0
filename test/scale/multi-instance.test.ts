import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awayFromHourBoundary } from '../helpers/clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { freePort, waitFor } from '../helpers/net.js';

const CLI = fileURLToPath(new URL('../../dist/cli/cairn.mjs', import.meta.url));
const sharedCounters = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
if (!sharedCounters) {
  console.info(
    '[cairn tests] multi-instance test on PostgreSQL + Redis skipped: it needs TEST_DATABASE_URL and TEST_REDIS_URL (SQLite runs).',
  );
}

interface Instance {
  base: string;
  process: ChildProcess;
}

/**
 * Two server instances on one database. On PostgreSQL + Redis that is how larger installations run; on
 * SQLite it is not a deployment (rate limits would be counted per instance) but the strictest test of the
 * in-process caches of keys and prompts (fresh-cache.ts): another process's commits, like an operator's
 * `cairn` command, must show on the very next request.
 */
const BACKENDS = [
  { name: 'SQLite', dialect: 'sqlite' as const, enabled: true },
  { name: 'PostgreSQL + Redis', dialect: 'postgres' as const, enabled: sharedCounters },
];

describe.each(BACKENDS.filter((backend) => backend.enabled))('two instances on one $name', ({ dialect }) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let a: Instance;
  let b: Instance;
  let key: string;
  let keyId: string;

  const cairn = (...args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`cairn ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };

  async function start(): Promise<Instance> {
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`);
    return { base, process: child };
  }

  const stop = (instance: Instance) =>
    new Promise<number | null>((resolve) => {
      if (instance.process.exitCode !== null) return resolve(instance.process.exitCode);
      instance.process.once('exit', (code) => resolve(code));
      instance.process.kill('SIGTERM');
    });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    env = {
      ...process.env,
      DATABASE_URL: database.url,
      ...(dialect === 'postgres' && {
        REDIS_URL: process.env.TEST_REDIS_URL,
        REDIS_KEY_PREFIX: `cairn-multi-${randomBytes(6).toString('hex')}:`,
      }),
      LOG_LEVEL: 'warn',
      // Long: a flush is a write of this process, which would hide a cache that missed another process's.
      USAGE_FLUSH_INTERVAL_MS: '600000',
    };
    cairn('migrate');
    cairn('users', 'create', '--email', 'team@example.com', '--rate-limit', '100000');
    const created = JSON.parse(
      cairn(
        'keys',
        'create',
        '--email',
        'team@example.com',
        '--name',
        'shared',
        '--integrations',
        'ai_tools,cli',
        '--json',
      ),
    );
    key = created.key;
    keyId = created.id;
    // Started together: migrations run once under the advisory lock.
    [a, b] = await Promise.all([start(), start()]);
  }, 60_000);

  afterAll(async () => {
    for (const instance of [a, b]) if (instance) await stop(instance);
    await database?.drop();
  });

  const call = (instance: Instance, path: string, init: RequestInit = {}, apiKey = key) =>
    fetch(`${instance.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });

  it('reads, updates and deletes through one instance what was created through the other', async () => {
    const created = await call(a, '/api/v1/memories', {
      method: 'POST',
      body: JSON.stringify({ text: 'Shared across instances ✓', project_name: 'team' }),
    });
    expect(created.status).toBe(201);
    const { memory_id } = (await created.json()) as { memory_id: string };
    const read = await call(b, `/api/v1/memories/${memory_id}`);
    expect(((await read.json()) as { text: string }).text).toBe('Shared across instances ✓');
    const updated = await call(b, `/api/v1/memories/${memory_id}`, {
      method: 'PUT',
      body: JSON.stringify({ text: 'Changed on B' }),
    });
    expect(updated.status).toBe(200);
    expect(((await (await call(a, `/api/v1/memories/${memory_id}`)).json()) as { text: string }).text).toBe(
      'Changed on B',
    );
    expect((await call(b, `/api/v1/memories/${memory_id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(a, `/api/v1/memories/${memory_id}`)).status).toBe(404);

    const artifact = await call(b, '/api/v1/artifacts', {
      method: 'POST',
      body: JSON.stringify({ project: 'team/docs', slug: 'plan', title: 'Plan', content: 'v1' }),
    });
    expect(artifact.status).toBe(201);
    const [x, y] = await Promise.all([
      call(a, '/api/v1/artifacts/team%2Fdocs/plan', {
        method: 'PUT',
        headers: { 'if-match': '"1"' },
        body: JSON.stringify({ content: 'from A' }),
      }),
      call(b, '/api/v1/artifacts/team%2Fdocs/plan', {
        method: 'PUT',
        headers: { 'if-match': '"1"' },
        body: JSON.stringify({ content: 'from B' }),
      }),
    ]);
    expect([x.status, y.status].sort()).toEqual([200, 412]);
  });

  it.runIf(dialect === 'postgres')(
    'admits exactly the limit for a concurrent burst split across both instances',
    { timeout: 60_000 },
    async () => {
      await awayFromHourBoundary(15_000); // real servers, real clock: the burst must fall in one hour
      cairn('users', 'create', '--email', 'burst@example.com', '--rate-limit', '50');
      const burstKey = cairn(
        'keys',
        'create',
        '--email',
        'burst@example.com',
        '--name',
        'burst',
        '--integrations',
        'cli',
      );
      const statuses = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          call(i % 2 ? a : b, '/api/v1/prompts', {}, burstKey).then(async (res) => {
            await res.arrayBuffer();
            return res.status;
          }),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(50);
      expect(statuses.filter((s) => s === 429)).toHaveLength(70);
    },
  );

  it('answers a prompt changed through one instance with the change on the very next read from the other', async () => {
    const created = await call(a, '/api/v1/prompts', {
      method: 'POST',
      body: JSON.stringify({ slug: 'cached', title: 'Cached', content: 'First {{x}} with @helper' }),
    });
    expect(created.status).toBe(201);
    const read = async (instance: Instance) => {
      const res = await call(instance, '/api/v1/prompts/cached');
      expect(res.status).toBe(200);
      return (await res.json()) as { content: string; version: number; broken_references: string[] };
    };
    // Read twice on B so that its answer is cached, then change the prompt through A.
    expect((await read(b)).version).toBe(1);
    expect(await read(b)).toMatchObject({ content: 'First {{x}} with @helper', broken_references: ['@helper'] });
    const updated = await call(a, '/api/v1/prompts/cached', {
      method: 'PUT',
      body: JSON.stringify({ content: 'Second {{x}} with @helper' }),
    });
    expect(updated.status).toBe(200);
    expect(await read(b)).toMatchObject({ content: 'Second {{x}} with @helper', version: 2 });
    // A change to another prompt changes this one's answer too: its reference is no longer broken.
    const helper = await call(a, '/api/v1/prompts', {
      method: 'POST',
      body: JSON.stringify({ slug: 'helper', title: 'Helper', content: 'Help' }),
    });
    expect(helper.status).toBe(201);
    expect((await read(b)).broken_references).toEqual([]);
    expect((await call(a, '/api/v1/prompts/cached', { method: 'DELETE' })).status).toBe(200);
    expect((await call(b, '/api/v1/prompts/cached')).status).toBe(404);
  });

  it('applies an operator command to a key or a user on the very next request to every instance', async () => {
    cairn('users', 'create', '--email', 'operated@example.com', '--rate-limit', '100000');
    const created = JSON.parse(
      cairn('keys', 'create', '--email', 'operated@example.com', '--name', 'op', '--integrations', 'cli', '--json'),
    ) as { id: string; key: string };
    const limitOf = async (instance: Instance) => {
      const res = await call(instance, '/api/v1/prompts', {}, created.key);
      await res.arrayBuffer();
      return { status: res.status, limit: res.headers.get('x-ratelimit-limit') };
    };
    for (const instance of [a, b, a, b]) expect(await limitOf(instance)).toEqual({ status: 200, limit: '100000' });
    cairn('users', 'update', '--email', 'operated@example.com', '--rate-limit', '5000');
    for (const instance of [a, b]) expect(await limitOf(instance)).toEqual({ status: 200, limit: '5000' });
    cairn('keys', 'revoke', created.id);
    for (const instance of [b, a]) expect((await limitOf(instance)).status).toBe(401);
  });

  it('refuses a key revoked through one instance on the very next request to the other', async () => {
    // A dashboard session on A creates and later revokes the key; B serves the API requests.
    const dashboard = async (path: string, init: RequestInit = {}, cookie = '') => {
      const res = await fetch(`${a.base}/dashboard/api${path}`, {
        ...init,
        headers: { 'content-type': 'application/json', origin: a.base, ...(cookie && { cookie }) },
      });
      return res;
    };
    const signup = await dashboard('/signup', {
      method: 'POST',
      body: JSON.stringify({ email: 'revoker@example.com', password: 'correct horse battery staple' }),
    });
    expect(signup.status).toBe(201);
    const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const created = await dashboard(
      '/keys',
      { method: 'POST', body: JSON.stringify({ name: 'to revoke', integrations: ['cli'] }) },
      cookie,
    );
    const { id, key: revocable } = (await created.json()) as { id: string; key: string };
    expect((await call(b, '/api/v1/prompts', {}, revocable)).status).toBe(200);
    expect((await dashboard(`/keys/${id}/revoke`, { method: 'POST' }, cookie)).status).toBe(200);
    expect((await call(b, '/api/v1/prompts', {}, revocable)).status).toBe(401);
    expect((await call(a, '/api/v1/prompts', {}, revocable)).status).toBe(401);
    expect((await call(b, '/api/v1/prompts')).status).toBe(200);
  });

  it('loses no acknowledged write when an instance is stopped mid-load', async () => {
    const acknowledged: string[] = [];
    let stopped = false;
    const writer = (async () => {
      for (let i = 0; i < 400 && !stopped; i++) {
        try {
          const res = await call(a, '/api/v1/memories', {
            method: 'POST',
            body: JSON.stringify({ text: `load ${i}` }),
          });
          if (res.status === 201) acknowledged.push(((await res.json()) as { memory_id: string }).memory_id);
        } catch {
          // connection refused once A is gone: not acknowledged
        }
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stop(a)).toBe(0);
    stopped = true;
    await writer;
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const id of acknowledged) {
      const res = await call(b, `/api/v1/memories/${id}`);
      expect(res.status, id).toBe(200);
    }
    // Usage figures written by the stopped instance on its way out are there too.
    const keys = JSON.parse(cairn('keys', 'list', '--email', 'team@example.com', '--json')) as Array<{
      id: string;
      request_count: number;
    }>;
    expect(keys.find((k) => k.id === keyId)?.request_count).toBeGreaterThan(acknowledged.length);
    a = await start();
  }, 60_000);
});
