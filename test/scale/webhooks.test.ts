import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-server.js';
import { createTestDatabase, type Dialect, type TestDatabase } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';
import { freePort, waitFor } from '../helpers/net.js';
import { Receiver } from '../helpers/webhook-receiver.js';

/**
 * The outbox across real processes of the built server (`npm run build` first): no event is lost when a
 * server is killed (-9) with deliveries queued and in flight, and two instances on one database (one SQLite
 * file; PostgreSQL) never attempt one delivery twice. Backoff is shrunk by settings and every wait is for a
 * condition, never a fixed time.
 */
const BACKENDS: Array<{ name: string; dialect: Dialect; enabled: boolean }> = [
  { name: 'SQLite', dialect: 'sqlite', enabled: true },
  { name: 'PostgreSQL', dialect: 'postgres', enabled: Boolean(process.env.TEST_DATABASE_URL) },
];

interface Instance {
  base: string;
  process: ChildProcess;
}

describe.each(BACKENDS.filter((backend) => backend.enabled))(
  'webhook outbox across processes on $name',
  ({ dialect }) => {
    let database: TestDatabase;
    let env: NodeJS.ProcessEnv;
    const instances: Instance[] = [];

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
      const instance = { base, process: child };
      instances.push(instance);
      return instance;
    }

    const exited = (instance: Instance, signal: NodeJS.Signals) =>
      new Promise<void>((resolve) => {
        if (instance.process.exitCode !== null || instance.process.signalCode !== null) return resolve();
        instance.process.once('exit', () => resolve());
        instance.process.kill(signal);
      });

    function userKey(email: string): string {
      cairn('users', 'create', '--email', email, '--rate-limit', '100000');
      return JSON.parse(
        cairn('keys', 'create', '--email', email, '--name', 'hooks', '--integrations', 'ai_tools,cli', '--json'),
      ).key;
    }

    const call = async (instance: Instance, key: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${instance.base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    };

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      env = {
        ...process.env,
        DATABASE_URL: database.url,
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Retries come fast (the schedule is injected through settings); nothing waits on a clock.
        WEBHOOK_RETRY_BASE_MS: '1',
        WEBHOOK_RETRY_MAX_MS: '20',
        WEBHOOK_MAX_ATTEMPTS: '100',
        WEBHOOK_DISABLE_AFTER_FAILURES: '100000',
        WEBHOOK_POLL_INTERVAL_MS: '20',
        WEBHOOK_TIMEOUT_MS: '1000',
        REDIS_KEY_PREFIX: `cairn-hooks-${randomBytes(6).toString('hex')}:`,
      };
      cairn('migrate');
    }, 60_000);

    afterAll(async () => {
      for (const instance of instances) await exited(instance, 'SIGTERM');
      await database?.drop();
    });

    it('loses no event when the server is killed -9 and started again', async () => {
      const receiver = await Receiver.start();
      try {
        const key = userKey('crash@example.com');
        const first = await start();
        const hook = await call(first, key, 'POST', '/webhooks', { url: receiver.url, events: ['memory.created'] });
        expect(hook.status).toBe(201);
        receiver.respond = () => 500; // down: everything stays queued, retried
        const created: string[] = [];
        for (let i = 0; i < 10; i++) {
          const memory = await call(first, key, 'POST', '/memories', { text: `crash test memory ${i}` });
          expect(memory.status).toBe(201);
          created.push(String(memory.body.memory_id));
        }
        await receiver.until(() => receiver.received.length >= 12); // retries under way
        await exited(first, 'SIGKILL');
        receiver.respond = () => 200; // back up
        const failedBefore = receiver.received.length;
        await start(); // the restarted server finds the outbox (leases of the killed one expire)
        await receiver.until(() => new Set(receiver.succeeded().map((event) => event.object.id)).size === 10);
        expect(new Set(receiver.succeeded().map((event) => event.object.id))).toEqual(new Set(created));
        expect(receiver.received.length).toBeGreaterThan(failedBefore);
        for (const event of receiver.succeeded()) expect(event.type).toBe('memory.created');
      } finally {
        await receiver.close();
      }
    }, 120_000);

    it('two instances on one database never attempt one delivery twice', async () => {
      const receiver = await Receiver.start();
      receiver.holdMs = 10; // answers take a moment: a second claimer would overlap
      try {
        const key = userKey('pair@example.com');
        while (instances.filter((i) => i.process.exitCode === null && i.process.signalCode === null).length < 2) {
          await start();
        }
        const [a, b] = instances.filter((i) => i.process.exitCode === null && i.process.signalCode === null);
        if (!a || !b) throw new Error('two instances expected');
        const hook = await call(a, key, 'POST', '/webhooks', { url: receiver.url, events: ['memory.created'] });
        expect(hook.status).toBe(201);
        const writes = [];
        for (let i = 0; i < 40; i++) {
          writes.push(call(i % 2 === 0 ? a : b, key, 'POST', '/memories', { text: `pair memory ${i}` }));
        }
        expect((await Promise.all(writes)).every((w) => w.status === 201)).toBe(true);
        await receiver.until(() => new Set(receiver.eventIds()).size === 40);
        // Every delivery is settled after one attempt: no second attempt can still come.
        const hookId = String(hook.body.id);
        const settledOnce = async () => {
          const page = await call(a, key, 'GET', `/webhooks/${hookId}/deliveries?per_page=100`);
          const rows = page.body.deliveries as Array<{ status: string; attempts: number }>;
          return rows.length === 40 && rows.every((row) => row.status === 'succeeded');
        };
        for (let i = 0; !(await settledOnce()); i++) {
          if (i > 1200) throw new Error('deliveries did not settle');
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const page = await call(b, key, 'GET', `/webhooks/${hookId}/deliveries?per_page=100`);
        const rows = page.body.deliveries as Array<{ attempts: number }>;
        expect(rows.map((row) => row.attempts)).toEqual(new Array(40).fill(1));
        expect(receiver.received).toHaveLength(40);
        expect(receiver.maxConcurrentPerEvent).toBe(1);
        const log = await call(b, key, 'GET', `/webhooks/${hookId}/attempts?per_page=100`);
        expect(log.body.total).toBe(40);
      } finally {
        await receiver.close();
      }
    }, 120_000);
  },
);
