import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliWorld } from '../helpers/cli-server.js';

/**
 * What a user with a wrong key sees in the third-party MCP clients the README recommends — the real
 * `mcp-remote` (the bridge Claude Desktop uses) and the real Inspector CLI — against a real `cairn serve`.
 * Both try OAuth after any 401; the server's answers (the 401 body, the 404s of the OAuth endpoints)
 * are written so that what these tools print names the key problem.
 */

const MCP_REMOTE = fileURLToPath(new URL('../../node_modules/.bin/mcp-remote', import.meta.url));
// The Inspector needs Node ≥ 22.19, so it runs on a Node 22 fetched by npx (as `npm run conformance` does).
const INSPECTOR = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/inspector@2.12.0', '--', 'mcp-inspector'];
const WRONG_KEY = `svk_${'x'.repeat(64)}`;
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wrong-key-test', version: '1.0.0' } },
})}\n`;

interface Run {
  code: number | null;
  output: string;
}

/**
 * Runs a client until it exits, or until `enough` matches its output (then stops it), or the timeout.
 * Output is stdout and stderr together: what a user sees in a terminal or a client's log.
 */
function run(
  command: string,
  args: string[],
  options: { env: Record<string, string>; input?: string; enough?: RegExp; timeoutMs: number },
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let done = false;
    const finish = (code: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
      resolve({ code, output });
    };
    const timer = setTimeout(() => finish(null), options.timeoutMs);
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (options.enough?.test(output)) finish(child.exitCode);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code) => setImmediate(() => finish(code)));
    if (options.input) child.stdin.write(options.input);
    // stdin stays open for mcp-remote (closing it would end the bridge before it connects).
    if (!options.input) child.stdin.end();
  });
}

describe('MCP clients with a wrong key', () => {
  let world: CliWorld;
  let url: string;
  let home: string;
  let restOnlyKey: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    world = await CliWorld.start('sqlite');
    url = `${world.base}/mcp/v1/common`;
    restOnlyKey = world.userWithKey('wrong-integration@example.com', 'cli');
    home = mkdtempSync(join(tmpdir(), 'cairn-mcp-clients-'));
    // A private home: neither tool may find or leave OAuth state in the user's.
    env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      MCP_REMOTE_CONFIG_DIR: join(home, '.mcp-auth'),
      npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? home, '.npm'),
      npm_config_update_notifier: 'false',
      BROWSER: 'true', // never open a browser
    };
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const STATIC_KEYS = /static API keys \(Authorization: Bearer svk_…\)/;

  /** The Inspector CLI listing tools with `key`, as a user would run it (with or without stored auth only). */
  const inspect = (key: string, storedAuthOnly: boolean) =>
    run(
      'npx',
      [
        ...INSPECTOR,
        '--cli',
        url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${key}`,
        '--method',
        'tools/list',
        ...(storedAuthOnly ? ['--stored-auth-only'] : []),
      ],
      { env, timeoutMs: 240_000 },
    );

  it('mcp-remote --transport http-only ends with the server’s explanation', async () => {
    const result = await run(
      MCP_REMOTE,
      [url, '--header', `Authorization:Bearer ${WRONG_KEY}`, '--transport', 'http-only'],
      { env, input: INITIALIZE, timeoutMs: 45_000, enough: /Fatal error/ },
    );
    // mcp-remote answers any 401 with OAuth discovery; the registration endpoint's 404 is what it shows.
    expect(result.output).toMatch(/Dynamic Client Registration rejected \(HTTP 404\)/);
    expect(result.output).toMatch(STATIC_KEYS);
    expect(result.output).toMatch(/the key it sent is missing, invalid, revoked or lacks the mcp_server integration/);
    expect(result.output).not.toMatch(/SSE error/);
  }, 60_000);

  it('mcp-remote with its default transport shows the explanation before its SSE fallback fails', async () => {
    const result = await run(MCP_REMOTE, [url, '--header', `Authorization:Bearer ${WRONG_KEY}`], {
      env,
      input: INITIALIZE,
      timeoutMs: 45_000,
      enough: /SSE error|Fatal error/,
    });
    expect(result.output).toMatch(STATIC_KEYS);
    // …and then the fallback's own error, which is why the README recommends --transport http-only.
    expect(result.output).toMatch(/SSE error: Non-200 status code \(405\)/);
  }, 60_000);

  it('the Inspector CLI with --stored-auth-only prints the 401 message', async () => {
    const wrong = await inspect(WRONG_KEY, true);
    expect(wrong.code).not.toBe(0);
    expect(wrong.output).toMatch(/Invalid API key\. This server uses static API keys/);
    const restOnly = await inspect(restOnlyKey, true);
    expect(restOnly.code).not.toBe(0);
    expect(restOnly.output).toMatch(/lacks the integration this endpoint needs: mcp_server/);
  }, 300_000);

  it('the Inspector CLI without a terminal and without --stored-auth-only names only its OAuth attempt', async () => {
    // The Inspector's own behaviour, whatever the server answers: documented in the README's troubleshooting.
    const result = await inspect(WRONG_KEY, false);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/Interactive OAuth requires a TTY.*--stored-auth-only/);
  }, 300_000);
});
