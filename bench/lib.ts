import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, waitFor } from '../test/helpers/net.js';

export { freePort, waitFor };

export const CLI = fileURLToPath(new URL('../dist/cli/cairn.mjs', import.meta.url));

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
  /** Where the server's stdout (its log) goes; inherited when absent. */
  logFile?: string;
  /** Extra `node` flags (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Command prefix that pins the server to a core (`taskset -c 0`), empty when not pinning. */
  pin?: string[];
  /** The database to serve (PostgreSQL for the BENCH_DATABASE_URL variant); a fresh SQLite file otherwise. */
  databaseUrl?: string;
}

export async function startCairn(options: StartOptions = {}): Promise<Cairn> {
  const { env = {}, logFile, nodeArgs = [], pin = [] } = options;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  const baseEnv = {
    ...process.env,
    DATABASE_URL: options.databaseUrl ?? `sqlite:${join(dir, 'cairn.db')}`,
    LOG_LEVEL: 'warn',
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
  const child = spawn(command as string, [...prefix, ...nodeArgs, CLI, 'serve'], {
    env: { ...baseEnv, PORT: String(port) },
    stdio: ['ignore', logFile ? openSync(logFile, 'w') : 'inherit', 'inherit'],
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
