import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, waitFor } from '../test/helpers/net.js';

export { freePort, waitFor };

export const CLI = fileURLToPath(new URL('../dist/cli/cairn.mjs', import.meta.url));
/** The compiled modules one file each (tsc's output beside the bundle), so a CPU profile's frames name their files. */
export const UNBUNDLED_CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

export interface Cairn {
  base: string;
  databaseUrl: string;
  key: string;
  process: ChildProcess;
  startMs: number;
  stop(): Promise<void>;
}

/** Starts the built `cairn serve` on a fresh SQLite file with one user and key. */
export interface StartOptions {
  env?: Record<string, string>;
  /** Where the server's stdout (its log) goes; a file in its temporary directory when absent. */
  logFile?: string;
  /** Extra `node` flags (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Command prefix that pins the server to a core (`taskset -c 0`), empty when not pinning. */
  pin?: string[];
  /** The CLI to run (`CLI` by default; `UNBUNDLED_CLI` keeps one file per module, for profiles). */
  cli?: string;
  /** The database to serve (PostgreSQL for the BENCH_DATABASE_URL variant); a fresh SQLite file otherwise. */
  databaseUrl?: string;
}

export async function startCairn(options: StartOptions = {}): Promise<Cairn> {
  const { env = {}, logFile, nodeArgs = [], pin = [], cli = CLI } = options;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  const baseEnv = {
    ...process.env,
    DATABASE_URL: options.databaseUrl ?? `sqlite:${join(dir, 'cairn.db')}`,
    // The default log level (info), as deployed: request logging is part of what a request costs.
    RATE_LIMIT_FREE: '1000000000',
    ...env,
  };
  spawnSync(process.execPath, [CLI, 'users', 'create', '--email', 'bench@example.com'], { env: baseEnv });
  const key = spawnSync(
    process.execPath,
    [CLI, 'keys', 'create', '--email', 'bench@example.com', '--name', 'bench', '--integrations', 'ai_tools,cli'],
    { env: baseEnv, encoding: 'utf8' },
  ).stdout.trim();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const [command, ...prefix] = [...pin, process.execPath];
  const child = spawn(command as string, [...prefix, ...nodeArgs, cli, 'serve'], {
    env: { ...baseEnv, PORT: String(port) },
    stdio: ['ignore', openSync(logFile ?? join(dir, 'server.log'), 'w'), 'inherit'],
  });
  await waitFor(`${base}/healthz`);
  const startMs = performance.now() - started;
  return {
    base,
    databaseUrl: baseEnv.DATABASE_URL,
    key,
    process: child,
    startMs,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 16, duration: 6, ...options });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

export function rssMb(pid: number): number {
  const status = spawnSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }).stdout;
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** A new database `cairn_bench_<pid>` on the PostgreSQL server of `serverUrl`, and how to drop it. */
export async function createPostgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `cairn_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** The prompts of the read rows (each referring to one that does not exist); returns the URL of the one read. */
export async function createReadPrompts(base: string, headers: Record<string, string>): Promise<string> {
  for (let i = 0; i < 20; i++) {
    await fetch(`${base}/api/v1/prompts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: `Prompt ${i}`,
        content: `Review {{code}} like @style-guide #${i}`,
        labels: ['bench'],
      }),
    });
  }
  return `${base}/api/v1/prompts/prompt-7`;
}

let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const VOCABULARY = Array.from({ length: 6000 }, (_, i) => `w${(i * 7919).toString(36)}`);

/** A memory to create, from a fixed seed: 12–51 words of a skewed 6,000-word vocabulary, a project, metadata. */
export const benchMemory = () => ({
  text: Array.from(
    { length: 12 + Math.floor(random() * 40) },
    () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)],
  ).join(' '),
  project_name: `org${Math.floor(random() * 20)}/api`,
  metadata: { priority: random() < 0.4 ? 'high' : 'low', tags: ['bench'] },
});

/**
 * autocannon ends a run of `amount` requests at its next sample tick (every `sampleInt` ms, 1 s by default)
 * and reports that as the duration: a rate from it is off by up to a second per run. Runs timed by their
 * amount sample every 20 ms instead.
 */
export const AMOUNT_SAMPLE_MS = 20;

/** A slow-request line of the server's log (request-log.ts): the request and Fastify's response time. */
interface SlowRequestLine {
  msg?: string;
  req?: { method?: string; url?: string };
  responseTime?: number;
}

/**
 * The server's own response times (Fastify's `reply.elapsedTime`: from the request's arrival at the
 * server's event loop to the end of its response, so without the time the request waited in the socket
 * before the server read it) of requests at or over the slow-request threshold (`SLOW_REQUEST_MS`), read
 * from the log as it grows. `next(method, path)` returns those logged since the previous call.
 */
export function slowRequestLog(logFile: string) {
  let offset = 0;
  let partial = '';
  return {
    next(method: string, path: string): number[] {
      // Only the bytes written since the previous call (the log grows through the whole benchmark).
      const fd = openSync(logFile, 'r');
      const added = Buffer.alloc(Math.max(0, fstatSync(fd).size - offset));
      offset += readSync(fd, added, 0, added.length, offset);
      closeSync(fd);
      const lines = (partial + added.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      const times: number[] = [];
      for (const line of lines) {
        if (!line.includes('"slow request"')) continue;
        const entry = JSON.parse(line) as SlowRequestLine;
        const url = entry.req?.url ?? '';
        if (entry.req?.method === method && (url === path || url.startsWith(`${path}?`)))
          times.push(entry.responseTime ?? Number.NaN);
      }
      return times;
    },
  };
}

/**
 * The server-side p99 of `total` requests given the response times of those at or over `thresholdMs`:
 * exact when at least 1% reached the threshold, else only known to be under it.
 */
export function serverP99(slow: number[], total: number, thresholdMs: number): string {
  const rank = Math.floor(total * 0.01);
  if (slow.length <= rank) return `< ${thresholdMs} ms`;
  const sorted = [...slow].sort((a, b) => b - a);
  return `${(sorted[rank] as number).toFixed(0)} ms`;
}
