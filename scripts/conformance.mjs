// Runs the official MCP conformance suite against a real Cairn server.
// The suite sends no Authorization header, so a small proxy in front adds a freshly minted key.
// Usage: npm run conformance (after `npm run build`). Needs the npm registry (it runs the suite with Node 22).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/cairn.mjs');
const dir = mkdtempSync(join(tmpdir(), 'cairn-conformance-'));
const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'cairn.db')}`, LOG_LEVEL: 'warn' };

const run = (...args) => {
  const result = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cairn ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
};
run('users', 'create', '--email', 'conformance@example.com', '--rate-limit', '1000000');
const key = run(
  'keys',
  'create',
  '--email',
  'conformance@example.com',
  '--name',
  'conformance',
  '--integrations',
  'mcp_server,ai_tools',
);

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const probeServer = createServer();
const cairnPort = await listen(probeServer);
await new Promise((resolve) => probeServer.close(resolve)); // only the free port number was needed
const serverProcess = spawn(process.execPath, [cli, 'serve'], {
  env: { ...env, PORT: String(cairnPort) },
  stdio: 'inherit',
});

for (let i = 0; ; i++) {
  try {
    if ((await fetch(`http://127.0.0.1:${cairnPort}/healthz`)).ok) break;
  } catch {}
  if (i > 300) throw new Error('cairn did not start');
  await new Promise((r) => setTimeout(r, 50));
}

// Content for the list/read scenarios.
const api = (path, body) =>
  fetch(`http://127.0.0.1:${cairnPort}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
await api('/prompts', { title: 'Greeting', content: 'Say hello to {{name}}.', available_in_mcp: true });
await api('/artifacts', { project: 'conformance', title: 'Readme', content: '# Hello' });
await api('/memories', { text: 'Conformance runs against a real service.' });

const proxy = createServer((req, res) => {
  const upstream = httpRequest(
    {
      host: '127.0.0.1',
      port: cairnPort,
      path: req.url,
      method: req.method,
      headers: { ...req.headers, authorization: `Bearer ${key}` },
    },
    (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
});
const proxyPort = await listen(proxy);

const suite = spawn(
  'npx',
  [
    '-y',
    '-p',
    'node@22',
    '-p',
    CONFORMANCE,
    'conformance',
    'server',
    '--url',
    `http://127.0.0.1:${proxyPort}/mcp/v1/common`,
    '--expected-failures',
    join(root, 'conformance/expected-failures.yml'),
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', env: process.env },
);
const code = await new Promise((resolve) => suite.on('exit', resolve));
proxy.close();
serverProcess.kill('SIGTERM');
await new Promise((resolve) => serverProcess.on('exit', resolve));
rmSync(dir, { recursive: true, force: true });
process.exit(code ?? 1);
