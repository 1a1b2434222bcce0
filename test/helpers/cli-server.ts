import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type Dialect, type TestDatabase } from './databases.js';
import type { Json } from './json.js';
import { freePort, waitFor } from './net.js';

export const CLI = fileURLToPath(new URL('../../dist/cli/cairn.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A real `cairn serve` on a free port and a temporary home for the client (HOME and XDG_CONFIG_HOME), so
 * the user commands run as the built binary exactly as a user runs them.
 */
export class CliWorld {
  database!: TestDatabase;
  home = '';
  base = '';
  private server: ChildProcess | undefined;

  static async start(dialect: Dialect, serverEnv: Record<string, string> = {}): Promise<CliWorld> {
    if (!existsSync(CLI)) throw new Error('dist/cli/cairn.mjs is missing: run `npm run build` (npm test does)');
    const world = new CliWorld();
    world.database = await createTestDatabase(dialect);
    world.home = mkdtempSync(join(tmpdir(), 'cairn-cli-home-'));
    const env = { ...process.env, DATABASE_URL: world.database.url, LOG_LEVEL: 'warn', ...serverEnv };
    const migrated = spawnSync(process.execPath, [CLI, 'migrate'], { env, encoding: 'utf8' });
    if (migrated.status !== 0) throw new Error(migrated.stderr);
    const port = await freePort();
    world.base = `http://127.0.0.1:${port}`;
    world.server = spawn(process.execPath, [CLI, 'serve'], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
    await waitFor(`${world.base}/healthz`);
    return world;
  }

  /** An operator command on the server's database (users, keys). */
  operator(...args: string[]): CliResult {
    const result = spawnSync(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATABASE_URL: this.database.url, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  /** A user with a key holding `integrations`; returns the key. */
  userWithKey(email: string, integrations = 'cli', rateLimit?: number): string {
    const created = this.operator(
      'users',
      'create',
      '--email',
      email,
      ...(rateLimit ? ['--rate-limit', String(rateLimit)] : []),
    );
    if (created.code !== 0 && !created.stderr.includes('already exists')) throw new Error(created.stderr);
    const key = this.operator('keys', 'create', '--email', email, '--name', 'test', '--integrations', integrations);
    if (key.code !== 0) throw new Error(key.stderr);
    return key.stdout.trim();
  }

  /** Runs the client as a user would: a clean environment apart from the temp home (and `env`). */
  cairn(args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}): CliResult {
    const base: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: this.home,
      XDG_CONFIG_HOME: join(this.home, '.config'),
    };
    const result = spawnSync(process.execPath, [CLI, ...args], {
      env: { ...base, ...options.env },
      input: options.input ?? '',
      cwd: options.cwd,
      encoding: 'utf8',
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  /** Parses the stdout of a `--json` run, failing with the stderr when the command failed. */
  json<T = Json>(args: string[], options: Parameters<CliWorld['cairn']>[1] = {}): T {
    const result = this.cairn([...args, '--json'], options);
    if (result.code !== 0) throw new Error(`cairn ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }

  /** Direct REST call (to change things behind the CLI's back, or check them). */
  async api(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${this.base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async stop(): Promise<void> {
    if (this.server && this.server.exitCode === null) {
      const exited = new Promise((resolve) => this.server?.once('exit', resolve));
      this.server.kill('SIGTERM');
      await exited;
    }
    rmSync(this.home, { recursive: true, force: true });
    await this.database?.drop();
  }
}
