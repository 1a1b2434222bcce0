import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CliWorld } from './cli-server.js';
import type { Dialect } from './databases.js';
import type { Json } from './json.js';

/**
 * A real `cairn serve` (the built binary, its own process) to attack, with a watchdog that measures how long
 * `/healthz` takes while an attack runs: a request that blocks the server's event loop shows up as a slow
 * health check, whatever the attack's own answer.
 */
export class HostileServer {
  private constructor(readonly world: CliWorld) {}

  static async start(dialect: Dialect, env: Record<string, string> = {}): Promise<HostileServer> {
    return new HostileServer(await CliWorld.start(dialect, env));
  }

  get base(): string {
    return this.world.base;
  }

  /** A user with a key for `integrations` (comma-separated). */
  key(email: string, integrations = 'cli,mcp_server'): string {
    return this.world.userWithKey(email, integrations);
  }

  async fetch(path: string, init: RequestInit & { key?: string; json?: unknown } = {}) {
    const { key, json, headers, ...rest } = init;
    const response = await fetch(`${this.base}${path}`, {
      ...rest,
      headers: {
        ...(key && { authorization: `Bearer ${key}` }),
        ...(json !== undefined && { 'content-type': 'application/json' }),
        ...(rest.method && rest.method !== 'GET' && { origin: this.base }),
        ...headers,
      },
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
    const text = await response.text();
    let body: Json;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status: response.status, headers: response.headers, body, bytes: text.length };
  }

  /** A real MCP client (SDK 1.x, the 2025 protocol generation) holding `key`. */
  async mcp(key: string): Promise<Client> {
    const client = new Client({ name: 'adversary', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${this.base}/mcp/v1/common`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    return client;
  }

  /**
   * Runs `attack` while polling `/healthz` back to back; returns the attack's result and the slowest health
   * check seen during it (and one more right after, so an attack shorter than a poll is still measured).
   */
  async underAttack<T>(attack: () => Promise<T>): Promise<{ result: T; worstHealthMs: number }> {
    let done = false;
    let worst = 0;
    const check = async () => {
      const started = performance.now();
      const response = await fetch(`${this.base}/healthz`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
      worst = Math.max(worst, performance.now() - started);
    };
    const watchdog = (async () => {
      while (!done) await check();
    })();
    let result: T;
    try {
      result = await attack();
    } finally {
      done = true;
      await watchdog;
    }
    await check();
    return { result, worstHealthMs: worst };
  }

  /** The server process is still running and answers. */
  async alive(): Promise<boolean> {
    try {
      return (await fetch(`${this.base}/healthz`)).status === 200;
    } catch {
      return false;
    }
  }

  stop(): Promise<void> {
    return this.world.stop();
  }
}
