/**
 * The write benchmarks alone (issue 15, docs/performance.md "Group commit"), quicker than `npm run bench`:
 * ingest with 32 concurrent `POST /api/v1/memories` in chunks, then ingest in batches of 100, then
 * durable single writes at 10 connections in interleaved pairs against bench/write-ceiling.mjs.
 * Uses the built server (`npm run build` first). With `taskset`, servers on core 0, load on core 1.
 *
 *   npx tsx bench/writes.ts                      20,000 memories in chunks of 5,000
 *   INGEST=200000 CHUNK=20000 PAIRS=5 npx tsx bench/writes.ts
 *   PROFILE=/tmp/prof INGEST=5000 PAIRS=0 BATCHES=0 npx tsx bench/writes.ts   CPU profile of the ingest
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { AMOUNT_SAMPLE_MS, benchMemory, freePort, startCairn, UNBUNDLED_CLI } from './lib.js';

const INGEST = Number(process.env.INGEST ?? 20_000);
const CHUNK = Number(process.env.CHUNK ?? 5_000);
const PAIRS = Number(process.env.PAIRS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 3);
const BATCH_SIZE = 100;
const BATCHES = Number(process.env.BATCHES ?? 100);

const pinning = spawnSync('taskset', ['-V']).status === 0;
const serverPin = pinning ? ['taskset', '-c', '0'] : [];
if (pinning) execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-writes-'));

const memory = benchMemory;

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, pinning ${pinning ? 'on' : 'off'}`,
);
// PROFILE=dir: a CPU profile of the server (written when it stops) for the per-stage breakdown.
const profile = process.env.PROFILE;
const cairn = await startCairn({
  pin: serverPin,
  nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  // One file per module in the profile, so that its samples can be told apart by module.
  ...(profile && { cli: UNBUNDLED_CLI }),
});
const headers = { authorization: `Bearer ${cairn.key}`, 'content-type': 'application/json' };
try {
  console.log(`Ingest, 32 concurrent POST /api/v1/memories`);
  for (let done = 0; done < INGEST; done += CHUNK) {
    const r = await autocannon({
      // dedupe=false: the seeded texts repeat, and the corpus must hold every one (as before issue 18).
      url: `${cairn.base}/api/v1/memories?dedupe=false`,
      connections: 32,
      amount: CHUNK,
      sampleInt: AMOUNT_SAMPLE_MS,
      timeout: 60,
      requests: [{ method: 'POST', headers, setupRequest: (req) => ({ ...req, body: JSON.stringify(memory()) }) }],
    });
    console.log(
      `  ${String(done + CHUNK).padStart(7)}   ${(CHUNK / r.duration).toFixed(0).padStart(5)}/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   max ${r.latency.max} ms${r.non2xx + r.errors ? `   errors ${r.non2xx + r.errors}` : ''}`,
    );
  }

  const probe = await fetch(`${cairn.base}/api/v1/memories/batch`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ memories: [memory()] }),
  });
  if (probe.status === 201 && BATCHES > 0) {
    const r = await autocannon({
      url: `${cairn.base}/api/v1/memories/batch`,
      connections: 4,
      amount: BATCHES,
      sampleInt: AMOUNT_SAMPLE_MS,
      timeout: 60,
      requests: [
        {
          method: 'POST',
          headers,
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ memories: Array.from({ length: BATCH_SIZE }, memory) }),
          }),
        },
      ],
    });
    console.log(
      `Batches of ${BATCH_SIZE}, 4 concurrent: ${((BATCHES * BATCH_SIZE) / r.duration).toFixed(0)} memories/s   per request p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms${r.non2xx + r.errors ? `   errors ${r.non2xx + r.errors}` : ''}`,
    );
  } else if (probe.status !== 201) console.log(`(no batch route: ${probe.status})`);

  const port = await freePort();
  const ceiling = spawn(
    serverPin[0] ?? process.execPath,
    [
      ...serverPin.slice(1),
      ...(pinning ? [process.execPath] : []),
      fileURLToPath(new URL('./write-ceiling.mjs', import.meta.url)),
      String(port),
      join(work, 'ceiling.db'),
    ],
    { stdio: 'inherit' },
  );
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const run = async (url: string, extra: Record<string, string>) => {
    const r = await autocannon({
      url,
      connections: 10,
      duration: SECONDS,
      requests: [
        { method: 'POST', headers: extra, setupRequest: (req) => ({ ...req, body: JSON.stringify(memory()) }) },
      ],
    });
    return { rps: r.requests.total / SECONDS, p99: r.latency.p99 };
  };
  console.log(`Durable single writes, 10 connections, ${PAIRS} pairs of ${SECONDS} s (ceiling, Cairn)`);
  for (let i = 0; i < PAIRS; i++) {
    const c = await run(`http://127.0.0.1:${port}/`, {});
    const k = await run(`${cairn.base}/api/v1/memories`, headers);
    console.log(
      `  ceiling ${c.rps.toFixed(0)}/s p99 ${c.p99} ms   Cairn ${k.rps.toFixed(0)}/s p99 ${k.p99} ms   ratio ${(k.rps / c.rps).toFixed(2)}`,
    );
  }
  ceiling.kill();
} finally {
  await cairn.stop();
  rmSync(work, { recursive: true, force: true });
}
