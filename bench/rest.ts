/**
 * REST benchmark (docs/operations.md#benchmarks): an authenticated prompt read against a bare node:http
 * server that returns the same bytes, in one run, plus start-up time and idle memory.
 * Run with `npm run bench` (builds first).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, load, rssMb, startCairn, waitFor } from './lib.js';

const cairn = await startCairn();
// Idle means idle: right at the first /healthz the start-up garbage (migrations, module loading) is not yet
// collected and RSS reads about twice its settled value; two seconds later it has settled.
const startRss = rssMb(cairn.process.pid ?? 0);
await new Promise((resolve) => setTimeout(resolve, 2000));
const idleRss = rssMb(cairn.process.pid ?? 0);
const headers = { authorization: `Bearer ${cairn.key}`, 'content-type': 'application/json' };
for (let i = 0; i < 20; i++) {
  await fetch(`${cairn.base}/api/v1/prompts`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      title: `Prompt ${i}`,
      content: `Review {{code}} like @style-guide #${i}`,
      labels: ['bench'],
    }),
  });
}
const readUrl = `${cairn.base}/api/v1/prompts/prompt-7`;
const sample = await (await fetch(readUrl, { headers })).text();

const barePort = await freePort();
const bare = fork(fileURLToPath(new URL('./bare-server.mjs', import.meta.url)), [String(barePort), sample]);
await waitFor(`http://127.0.0.1:${barePort}/`);

// Warm both, then measure alternately.
await load({ url: `http://127.0.0.1:${barePort}/`, duration: 2 });
await load({ url: readUrl, headers, duration: 2 });
const baseline = await load({ url: `http://127.0.0.1:${barePort}/` });
const read = await load({ url: readUrl, headers });
const list = await load({ url: `${cairn.base}/api/v1/prompts?per_page=20`, headers });
const create = await load({
  url: `${cairn.base}/api/v1/prompts`,
  method: 'POST',
  headers,
  body: JSON.stringify({ title: 'Bench create', content: 'Hello {{name}}' }),
  duration: 4,
});

const fmt = (n: number) => n.toFixed(0).padStart(7);
const row = (name: string, r: Awaited<ReturnType<typeof load>>) =>
  `${name.padEnd(34)} ${fmt(r.requestsPerSecond)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms${r.non2xx ? `   non-2xx ${r.non2xx}` : ''}`;
console.log('\nCairn REST benchmark (SQLite, 16 connections, loader on the same machine)');
console.log(row('bare node:http (same bytes)', baseline));
console.log(row('GET /api/v1/prompts/{slug} (auth)', read));
console.log(row('GET /api/v1/prompts (20 items)', list));
console.log(row('POST /api/v1/prompts (durable)', create));
console.log(
  `authenticated read / bare node:http: ${(read.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}× (target ≥ 0.5×)`,
);
console.log(`start to /healthz: ${cairn.startMs.toFixed(0)} ms (target ≤ 1000 ms)`);
console.log(
  `idle RSS 2 s after start: ${idleRss.toFixed(0)} MB (target ≤ 150 MB); at the first /healthz ${startRss.toFixed(0)} MB`,
);

bare.kill();
await cairn.stop();
