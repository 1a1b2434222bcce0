/**
 * Where the hot read's time goes (issue 15, docs/performance.md): `GET /api/v1/prompts/{slug}` under a
 * CPU profiler, the profile's samples attributed to stages.
 *
 *   npm run build && npx tsx bench/profile-read.ts               SQLite, 10 connections, 10 s
 *   SECONDS=20 CONNECTIONS=50 npx tsx bench/profile-read.ts
 *   BENCH_DATABASE_URL=postgres://… BENCH_REDIS_URL=redis://… npx tsx bench/profile-read.ts
 *   KEEP=profile.cpuprofile npx tsx bench/profile-read.ts        also keeps the profile (Chrome DevTools)
 *   TARGET=mcp npx tsx bench/profile-read.ts                     the benchmark's MCP request instead
 *                                                                (tools/call svc_get_memory, 2025-11-25)
 *   TARGET=memory npx tsx bench/profile-read.ts                  its REST counterpart, GET /api/v1/memories/{id}
 *   TARGET=create npx tsx bench/profile-read.ts                  POST /api/v1/memories (the write row's bodies, on
 *                                                                INGEST=10000 memories; `?dedupe=false` with DEDUPE=false)
 *   TOP=30 npx tsx bench/profile-read.ts                         also the 30 functions with most self time
 *
 * Each sample goes to the stage of the innermost frame on its stack that a rule below recognises, so time
 * in e.g. a Kysely helper called by the key lookup counts as query building, not as authentication.
 */

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  benchMemory,
  type Cairn,
  CLI,
  createPostgresDatabase,
  createReadPrompts,
  startCairn,
  UNBUNDLED_CLI,
} from './lib.js';

const seconds = Number(process.env.SECONDS ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 10);
const postgres = process.env.BENCH_DATABASE_URL;
const redis = process.env.BENCH_REDIS_URL;
const target = process.env.TARGET ?? 'read';
const top = Number(process.env.TOP ?? 0);

type Rule = [stage: string, test: (url: string, name: string) => boolean];

/**
 * Owners: a frame of one of these anywhere on the stack (the innermost first) decides the stage, so a
 * file write under pino is logging and a hash under the access gate is auth.
 */
const OWNERS: Rule[] = [
  ['garbage collection', (_u, n) => n === '(garbage collector)'],
  ['idle (waiting for I/O)', (_u, n) => n === '(idle)'],
  ['request logging (pino)', (u) => /\/(pino|pino-std-serializers|sonic-boom|thread-stream|@pinojs)\//.test(u)],
  ['serialisation', (u, n) => n === 'stringify' || /fast-json-stringify|dist\/http\/serialise/.test(u)],
  ['SQL execution (better-sqlite3)', (u) => /sqlite-driver\.js$/.test(u)],
  ['PostgreSQL client (pg)', (u) => /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pgpass)\//.test(u)],
  ['Redis client (ioredis)', (u) => /\/node_modules\/(ioredis|redis-parser|@ioredis)\//.test(u)],
  ['query building and compiling (Kysely)', (u) => u.includes('/node_modules/kysely/')],
  [
    'auth (key parsing, SHA-256, lookup)',
    (u) => /dist\/(domain\/accounts\/(access-gate|api-key)|http\/auth)\.js|node:internal\/crypto/.test(u),
  ],
  ['rate limit and usage', (u) => /dist\/(counters\/|domain\/limits\/|http\/rate-headers)/.test(u)],
  ['prompt read (service, store, mapping)', (u) => /dist\/(domain\/prompts|storage\/prompt)/.test(u)],
  ['memory read (service, store, mapping)', (u) => /dist\/(domain\/memories|storage\/memor)/.test(u)],
  ['zod (parsing, validation)', (u) => u.includes('/node_modules/zod/')],
  ['Web Request/Response, Headers, streams (undici)', (u) => /^node:internal\/(deps\/undici|webstreams)/.test(u)],
  ['MCP SDK', (u) => u.includes('/node_modules/@modelcontextprotocol/')],
  ['Cairn MCP layer (mcp/, http/routes/mcp)', (u) => /dist\/(mcp\/|http\/routes\/mcp)/.test(u)],
];
/** Places, when no owner is on the stack: the innermost frame that one of these recognises. */
const PLACES: Rule[] = [
  [
    'HTTP parsing and socket writes (node)',
    (u) => /^node:(_http|net|internal\/(streams|http|net|stream_base))/.test(u),
  ],
  ['other Cairn code', (u) => u.includes('/dist/')],
  [
    'Fastify (routing, hooks, reply)',
    (u) => /\/node_modules\/(fastify|find-my-way|avvio|@fastify|light-my-request|fastq|toad-cache)\//.test(u),
  ],
  ['node internals (timers, promises, events)', (u) => u.startsWith('node:')],
  ['native (V8 / libuv / program)', (_u, n) => n === '(program)' || n === '(root)'],
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/**
 * Only the samples between `from` and `to` (µs of the monotonic clock, which V8's profile timestamps and
 * `process.hrtime` share), i.e. the measured load without start-up, warm-up and shutdown.
 */
function stagesOf(
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number },
  from: number,
  to: number,
) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const innermost = (id: number, rules: Rule[]): string | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { url, functionName } = (byId.get(at) as ProfileNode).callFrame;
      const rule = rules.find(([, test]) => test(url, functionName));
      if (rule) return rule[0];
    }
    return undefined;
  };
  const stageOfNode = new Map<number, string>();
  const stageOf = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known) return known;
    const stage = innermost(id, OWNERS) ?? innermost(id, PLACES) ?? 'other';
    stageOfNode.set(id, stage);
    return stage;
  };
  const micros = new Map<string, number>();
  const self = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) return;
    micros.set(stageOf(id), (micros.get(stageOf(id)) ?? 0) + delta);
    const { url, functionName } = (byId.get(id) as ProfileNode).callFrame;
    const where = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '')}`;
    self.set(where, (self.get(where) ?? 0) + delta);
    total += delta;
  });
  return { micros, self, total };
}

/**
 * The MCP row's requests: a memory, and `tools/call svc_get_memory` with a key with the mcp_server
 * integration (`mcp`) or `GET /api/v1/memories/{id}` (`memory`).
 */
async function memoryRequest(cairn: Cairn, headers: Record<string, string>, over: 'mcp' | 'memory') {
  const created = await fetch(`${cairn.base}/api/v1/memories`, {
    method: 'POST',
    headers,
    body: JSON.stringify(benchMemory()),
  });
  const { memory_id } = (await created.json()) as { memory_id: string };
  if (over === 'memory') {
    return {
      label: 'GET /api/v1/memories/{id}',
      options: { url: `${cairn.base}/api/v1/memories/${memory_id}`, headers },
    };
  }
  const key = spawnSync(
    process.execPath,
    [CLI, 'keys', 'create', '--email', 'bench@example.com', '--name', 'mcp', '--integrations', 'mcp_server'],
    { env: { ...process.env, DATABASE_URL: cairn.databaseUrl }, encoding: 'utf8' },
  ).stdout.trim();
  return {
    label: 'MCP tools/call svc_get_memory (2025-11-25)',
    options: {
      url: `${cairn.base}/mcp/v1/common`,
      method: 'POST' as const,
      headers: {
        authorization: `Bearer ${key}`,
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
    },
  };
}

/**
 * The write row's request: a new memory of bench/lib.ts's texts each time (so near duplicates are found),
 * on INGEST memories stored first (10,000 by default, as the write row; batches of 100).
 */
async function createRequest(cairn: Cairn, headers: Record<string, string>) {
  for (let stored = 0; stored < Number(process.env.INGEST ?? 10_000); stored += 100) {
    const response = await fetch(`${cairn.base}/api/v1/memories/batch`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ memories: Array.from({ length: 100 }, benchMemory) }),
    });
    if (!response.ok) throw new Error(`batch create: ${response.status}`);
  }
  const path = process.env.DEDUPE === 'false' ? '/api/v1/memories?dedupe=false' : '/api/v1/memories';
  return {
    label: `POST ${path}`,
    options: {
      url: `${cairn.base}${path}`,
      method: 'POST' as const,
      headers,
      requests: [
        {
          method: 'POST' as const,
          path,
          setupRequest: (request: autocannon.Request) => ({ ...request, body: JSON.stringify(benchMemory()) }),
        },
      ],
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'cairn-profile-'));
const database = postgres ? await createPostgresDatabase(postgres) : undefined;
try {
  const cairn = await startCairn({
    databaseUrl: database?.url,
    env: redis ? { REDIS_URL: redis } : {},
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    cli: UNBUNDLED_CLI,
  });
  const headers = { authorization: `Bearer ${cairn.key}`, 'content-type': 'application/json' };
  const { label, options } =
    target === 'mcp' || target === 'memory'
      ? await memoryRequest(cairn, headers, target)
      : target === 'create'
        ? await createRequest(cairn, headers)
        : {
            label: 'GET /api/v1/prompts/{slug}',
            options: { url: await createReadPrompts(cairn.base, headers), headers },
          };
  await autocannon({ ...options, connections, duration: 2 }); // warm-up
  const from = Number(process.hrtime.bigint() / 1000n);
  const result = await autocannon({ ...options, connections, duration: seconds });
  const to = Number(process.hrtime.bigint() / 1000n);
  await cairn.stop();
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the server wrote no profile');
  if (process.env.KEEP) copyFileSync(join(dir, file), process.env.KEEP);
  const { micros, self, total } = stagesOf(JSON.parse(readFileSync(join(dir, file), 'utf8')), from, to);
  const requests = result.requests.total;
  console.log(
    `${label} on ${postgres ? `PostgreSQL${redis ? ' + Redis' : ''}` : 'SQLite'}, ${connections} connections, ${seconds} s: ${(requests / seconds).toFixed(0)} req/s, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx`,
  );
  console.log(`main thread ${(total / 1e6).toFixed(1)} s of samples during the load\n`);
  console.log('stage                                          share   µs per request');
  for (const [stage, us] of [...micros].sort((a, b) => b[1] - a[1])) {
    console.log(
      `${stage.padEnd(46)} ${((100 * us) / total).toFixed(1).padStart(5)}%   ${(us / requests).toFixed(1).padStart(6)}`,
    );
  }
  if (top > 0) {
    console.log('\nself time                                                          µs per request');
    for (const [where, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${where.slice(0, 66).padEnd(66)} ${(us / requests).toFixed(1).padStart(6)}`);
    }
  }
} finally {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
}
