/**
 * MCP vs REST (docs/operations.md#benchmarks): `svc_get_memory` over MCP against
 * `GET /api/v1/memories/{id}` over REST, same server, same run, same concurrency.
 * Run with `npm run bench:mcp` (builds first).
 */
import { spawnSync } from 'node:child_process';
import { CLI, load, startCairn } from './lib.js';

const cairn = await startCairn();
const mcpKey = spawnSync(
  process.execPath,
  [CLI, 'keys', 'create', '--email', 'bench@example.com', '--name', 'mcp', '--integrations', 'mcp_server'],
  { env: { ...process.env, DATABASE_URL: cairn.databaseUrl }, encoding: 'utf8' },
).stdout.trim();
const restHeaders = { authorization: `Bearer ${cairn.key}`, 'content-type': 'application/json' };
const created = await fetch(`${cairn.base}/api/v1/memories`, {
  method: 'POST',
  headers: restHeaders,
  body: JSON.stringify({
    text: 'Benchmark memory: prefer small modules',
    project_name: 'bench',
    metadata: { priority: 'high' },
  }),
});
const { memory_id } = (await created.json()) as { memory_id: string };

// What a 2025-11-25 client (SDK 1.x) sends for one stateless tool call.
const mcpCall = {
  url: `${cairn.base}/mcp/v1/common`,
  method: 'POST' as const,
  headers: {
    authorization: `Bearer ${mcpKey}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'svc_get_memory', arguments: { memory_id } },
  }),
};
const check = await fetch(mcpCall.url, mcpCall);
const checkBody = await check.text();
if (!check.ok || !checkBody.includes(memory_id))
  throw new Error(`MCP call failed: ${check.status} ${checkBody.slice(0, 300)}`);

const restCall = { url: `${cairn.base}/api/v1/memories/${memory_id}`, headers: restHeaders };
await load({ ...restCall, duration: 2 });
await load({ ...mcpCall, duration: 2 });
const rest = await load(restCall);
const mcp = await load(mcpCall);

const row = (name: string, r: Awaited<ReturnType<typeof load>>) =>
  `${name.padEnd(40)} ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms${r.non2xx ? `   non-2xx ${r.non2xx}` : ''}`;
console.log('\nMCP vs REST (SQLite, 16 connections, 6 s each, loader on the same machine)');
console.log(row('REST GET /api/v1/memories/{id}', rest));
console.log(row('MCP tools/call svc_get_memory', mcp));
console.log(`MCP / REST throughput: ${(mcp.requestsPerSecond / rest.requestsPerSecond).toFixed(2)}× (target ≥ 0.33×)`);
await cairn.stop();
