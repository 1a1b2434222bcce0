/**
 * `npm run bench` (issue 15, docs/performance.md): every measurement as a ratio to a ceiling run side by
 * side in the same process tree, in interleaved pairs (ceiling, Cairn, ceiling, Cairn, …), min–median–max
 * printed, the machine described, and one summary line at the end.
 *
 *   npm run bench                 full run (200,000 memories ingested, 5 pairs of 5 s)
 *   npm run bench -- --quick      for development (10,000 memories, 3 pairs of 2 s, small search corpus)
 *   npm run bench -- --only read  only some rows (comma-separated: ingest, read, mcp, write, start, search;
 *                                 write needs ingest)
 *   npm run bench -- --ingest=50000 --chunk=10000   another ingest size (either mode)
 *
 * With two or more cores and `taskset` (util-linux), the server under test and its ceiling run on core 0 and
 * the load generator on core 1. The load generator is wrk when it is on PATH, autocannon otherwise.
 * BENCH_DATABASE_URL (a PostgreSQL server URL the benchmark may create a database on) and BENCH_REDIS_URL
 * run Cairn on PostgreSQL + Redis instead; the write ceiling and the search benchmark stay SQLite-only.
 */
import { type ChildProcess, execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  AMOUNT_SAMPLE_MS,
  benchMemory,
  type Cairn,
  CLI,
  createPostgresDatabase,
  createReadPrompts,
  freePort,
  rssMb,
  serverP99,
  slowRequestLog,
  startCairn,
  waitFor,
} from './lib.js';

const quick = process.argv.includes('--quick');
const settings = quick
  ? { pairs: 3, seconds: 2, ingest: 10_000, chunk: 2_000, starts: 3, search: ['10000', '10000', '500'] }
  : { pairs: 5, seconds: 5, ingest: 200_000, chunk: 20_000, starts: 5, search: ['100000', '100000', '2000'] };
const ROWS = ['ingest', 'read', 'mcp', 'write', 'start', 'search'] as const;
const onlyArgument = process.argv[process.argv.indexOf('--only') + 1];
const only = process.argv.includes('--only') ? (onlyArgument ?? '').split(',') : [...ROWS];
for (const row of only) {
  if (!(ROWS as readonly string[]).includes(row)) throw new Error(`--only: unknown row "${row}" (${ROWS.join(', ')})`);
}
if (only.includes('write') && !only.includes('ingest')) throw new Error('--only: the write row needs ingest');
const runs = (row: (typeof ROWS)[number]) => only.includes(row);
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
settings.ingest = Number(flag('ingest') ?? settings.ingest);
settings.chunk = Number(flag('chunk') ?? Math.min(settings.chunk, settings.ingest));
/** Memories per `POST /memories/batch` request, and how many such requests the batch ingest makes. */
const BATCH_SIZE = 100;
const batchRequests = quick ? 50 : 200;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-run-'));

// ---- The machine and how the load is generated ----------------------------------------------------------

const cores = availableParallelism();
const hasTaskset = spawnSync('taskset', ['-V']).status === 0;
const pinning = cores >= 2 && hasTaskset;
const serverPin = pinning ? ['taskset', '-c', '0'] : [];
// autocannon runs in this process: move all of its threads to core 1.
if (pinning) execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
const wrk = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
const loader = wrk ? 'wrk' : 'autocannon';
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
const postgres = process.env.BENCH_DATABASE_URL;
const redis = process.env.BENCH_REDIS_URL;
/** The write row's and the ingest's ceiling (write-ceiling.mjs): SQLite whatever Cairn runs on. */
const WRITE_CEILING_NAME = `raw INSERT + FTS5${postgres ? ' on SQLite' : ''}, WAL, synchronous=FULL`;
const backend = postgres ? `PostgreSQL${redis ? ' + Redis' : ''}` : 'SQLite';

console.log(`Cairn benchmark ${quick ? '(--quick) ' : ''}on ${backend}, ${new Date().toISOString()}`);
console.log(`commit ${commit}${dirty ? ' (with uncommitted changes)' : ''}, node ${process.version}`);
console.log(
  `CPU ${cpus()[0]?.model ?? 'unknown'}, ${cores} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  pinning
    ? 'pinning: servers on core 0, load generator on core 1 (taskset)'
    : `pinning: none (${cores < 2 ? 'fewer than 2 cores' : 'taskset not found; install util-linux'}): server and load share the cores`,
);
console.log(`load generator: ${loader}${wrk ? ` (${wrk})` : ' (wrk not on PATH)'}, no pipelining`);

// ---- Load ------------------------------------------------------------------------------------------------

interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /**
   * A fixed body, or a new one per request: a memory (`memoryBody`) whose text must differ from every other
   * request's, or Cairn answers an exact duplicate with the stored memory and writes nothing (issue 18's
   * duplicates on write). wrk rotates WRK_BODIES bodies made up front, each request's text opening with a
   * word of its own (`wrkBodies`).
   */
  body?: string | (() => string);
  connections: number;
  seconds: number;
  /** The server's process, whose CPU time per request is measured (Linux /proc). */
  pid?: number;
}
interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server's CPU time (user + system) per request, µs: what a request costs, whatever else runs. */
  cpuUs?: number;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU time a process has used so far, µs (utime + stime from /proc/<pid>/stat); NaN when unreadable. */
function cpuMicros(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1e6;
  } catch {
    return Number.NaN;
  }
}

/** A run with the server's CPU time per request (robust on a shared machine, unlike the rate). */
async function measured(load: Load): Promise<Result> {
  const before = cpuMicros(load.pid);
  const result = await run(load);
  return { ...result, cpuUs: (cpuMicros(load.pid) - before) / (result.rps * load.seconds) };
}

async function run(load: Load): Promise<Result> {
  if (wrk) return runWrk(load);
  const { body } = load;
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    requests: [
      {
        method: load.method ?? 'GET',
        headers: load.headers,
        ...(typeof body === 'string' && { body }),
        ...(typeof body === 'function' && { setupRequest: (request) => ({ ...request, body: body() }) }),
      },
    ],
  });
  return {
    rps: result.requests.total / load.seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

/** `[command, args]` of a command line, pinned when `pin` is not empty. */
const commandLine = (...parts: string[]): [string, string[]] => [parts[0] as string, parts.slice(1)];

const luaString = (value: string) => JSON.stringify(value); // a JSON string is a valid Lua string literal here

/**
 * `fetch` for the benchmark's own setup calls. wrk runs block this process (`spawnSync`), so a pooled
 * keep-alive connection that the server closed meanwhile can still look open when the next call takes it
 * ("other side closed"): one retry, on a new connection.
 */
async function setupFetch(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fetch(url, init);
  }
}

/**
 * Bodies a wrk run rotates through when the load makes one per request: more than a run sends (5 s of
 * creates), so that, as with autocannon's body per request, a create rarely has near duplicates (a worst
 * case of its own: bench/create-cost.ts).
 */
const WRK_BODIES = 4096;
let wrkRuns = 0;

/**
 * Lua for wrk's `request` hook: WRK_BODIES bodies from `body()`, each a JSON memory whose text gets a first
 * word unique to the request (`u<run>x<n>`): texts never repeat within a run or across runs, so every
 * create inserts a memory, as with autocannon's body per request.
 */
function wrkBodies(body: () => string): string[] {
  const run = ++wrkRuns;
  const templates = Array.from({ length: WRK_BODIES }, () => {
    const text = body();
    if (!text.startsWith('{"text":"')) throw new Error('wrk bodies: a memory whose text comes first');
    return `{"text":"u${run}x%d ${text.slice('{"text":"'.length).replaceAll('%', '%%')}`;
  });
  return [
    `local templates = { ${templates.map(luaString).join(', ')} }`,
    'local n = 0',
    'request = function()',
    '  n = n + 1',
    `  return wrk.format(nil, nil, nil, string.format(templates[(n % ${WRK_BODIES}) + 1], n))`,
    'end',
  ];
}

function runWrk(load: Load): Result {
  const { body } = load;
  const script = join(work, 'wrk.lua');
  writeFileSync(
    script,
    [
      `wrk.method = ${luaString(load.method ?? 'GET')}`,
      ...(body === undefined ? [] : typeof body === 'string' ? [`wrk.body = ${luaString(body)}`] : wrkBodies(body)),
      ...Object.entries(load.headers ?? {}).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`),
      'done = function(summary, latency, requests)',
      '  io.write(string.format("BENCH %f %f %f %d\\n", summary.requests / (summary.duration / 1e6),',
      '    latency:percentile(50) / 1000, latency:percentile(99) / 1000,',
      '    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))',
      'end',
    ].join('\n'),
  );
  const pin = pinning ? ['taskset', '-c', '1'] : [];
  const [command, args] = commandLine(
    ...pin,
    wrk,
    '-t1',
    `-c${load.connections}`,
    `-d${load.seconds}s`,
    '-s',
    script,
    load.url,
  );
  const out = spawnSync(command, args, { encoding: 'utf8' }).stdout;
  const match = /BENCH (\S+) (\S+) (\S+) (\d+)/.exec(out);
  if (!match) throw new Error(`wrk printed no result:\n${out}`);
  return { rps: Number(match[1]), p50: Number(match[2]), p99: Number(match[3]), errors: Number(match[4]) };
}

// ---- Statistics and printing ----------------------------------------------------------------------------

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const spread = (values: number[], digits = 0, unit = '') =>
  `${Math.min(...values).toFixed(digits)}–${median(values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}${unit}`;

interface Pairs {
  name: string;
  ceilingName: string;
  ceiling: Result[];
  cairn: Result[];
}

/** Warm-up of each, then `settings.pairs` interleaved runs: ceiling, Cairn, ceiling, Cairn, … */
async function pairs(name: string, ceilingName: string, ceiling: Load, cairn: Load): Promise<Pairs> {
  await run({ ...ceiling, seconds: 1 });
  await run({ ...cairn, seconds: 1 });
  const result: Pairs = { name, ceilingName, ceiling: [], cairn: [] };
  for (let i = 0; i < settings.pairs; i++) {
    result.ceiling.push(await measured(ceiling));
    result.cairn.push(await measured(cairn));
  }
  const ratios = ratiosOf(result);
  const errors = [...result.ceiling, ...result.cairn].reduce((sum, r) => sum + r.errors, 0);
  console.log(`\n${name} (${ceiling.connections} connections, ${settings.pairs} pairs of ${ceiling.seconds} s)`);
  const line = (label: string, rs: Result[]) =>
    `  ${label.padEnd(34)} ${spread(rs.map((r) => r.rps)).padStart(20)} req/s   p50 ${spread(
      rs.map((r) => r.p50),
      1,
    )} ms   p99 ${spread(
      rs.map((r) => r.p99),
      1,
    )} ms   cpu ${spread(
      rs.map((r) => r.cpuUs ?? Number.NaN),
      0,
    )} µs/request`;
  console.log(line(`ceiling: ${ceilingName}`, result.ceiling));
  console.log(line('Cairn', result.cairn));
  console.log(
    `  ratio (pairwise, min–median–max)   throughput ${spread(ratios.throughput, 3)}   p99 ${p99Ratio(ratios, spread(ratios.p99, 1))}   cpu ${spread(ratios.cpu, 3)}${
      errors ? `   errors/non-2xx ${errors}` : ''
    }`,
  );
  return result;
}

/**
 * autocannon reports whole milliseconds, so a ceiling's p99 under 1 ms reads 0: the p99 ratio then uses
 * 1 ms and is a lower bound (`atLeast`), printed as `×≥n`.
 */
const LATENCY_RESOLUTION_MS = 1;

function ratiosOf(p: Pairs) {
  const ceilingP99 = p.ceiling.map((r) => (wrk ? r.p99 : Math.max(r.p99, LATENCY_RESOLUTION_MS)));
  return {
    throughput: p.cairn.map((r, i) => r.rps / (p.ceiling[i]?.rps ?? Number.NaN)),
    p99: p.cairn.map((r, i) => r.p99 / (ceilingP99[i] ?? Number.NaN)),
    /** Ceiling's CPU per request / Cairn's: the throughput ratio both would reach on a core each had alone. */
    cpu: p.cairn.map((r, i) => (p.ceiling[i]?.cpuUs ?? Number.NaN) / (r.cpuUs ?? Number.NaN)),
    atLeast: p.ceiling.some((r) => !wrk && r.p99 < LATENCY_RESOLUTION_MS),
  };
}
const p99Ratio = (ratios: ReturnType<typeof ratiosOf>, value: string) => `×${ratios.atLeast ? '≥' : ''}${value}`;
const m = (values: number[], digits: number) => median(values).toFixed(digits);
const ratioSummary = (result: Pairs) =>
  `${m(ratiosOf(result).throughput, 3)} (p99 ${p99Ratio(ratiosOf(result), m(ratiosOf(result).p99, 1))}, cpu ${m(ratiosOf(result).cpu, 3)})`;

/** The worst of the chunks' server-side p99s ("< 20 ms" ranks below any exact value). */
const worstServerP99 = (values: string[]) =>
  values.reduce((worst, value) =>
    value.startsWith('<') || (!worst.startsWith('<') && parseFloat(worst) >= parseFloat(value)) ? worst : value,
  );

// ---- Text ------------------------------------------------------------------------------------------------

const memoryBody = () => JSON.stringify(benchMemory());

// ---- The database --------------------------------------------------------------------------------------

const database = postgres ? await createPostgresDatabase(postgres) : undefined;
const databaseUrl = database?.url ?? `sqlite:${join(work, 'cairn.db')}`;
const dropDatabase = database?.drop ?? (async () => {});
/**
 * The server logs every request that takes SLOW_MS or more (request-log.ts; the default threshold is 1 s):
 * the ingest rows read the server's own response times of their creates from those lines.
 */
const SLOW_MS = 20;
const env: Record<string, string> = { SLOW_REQUEST_MS: String(SLOW_MS), ...(redis ? { REDIS_URL: redis } : {}) };
const serverLog = join(work, 'server.log');

const summary: string[] = [];
const children: ChildProcess[] = [];
try {
  // ---- Start-up and idle memory (fresh database) ----------------------------------------------------------
  const cairn = await startCairn({ env, databaseUrl, pin: serverPin, logFile: serverLog });
  const slowLog = slowRequestLog(serverLog);
  children.push(cairn.process); // stopped below; killed by the finally block if a row throws
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleRss = rssMb(cairn.process.pid ?? 0);
  console.log(`Idle RSS 2 s after start: ${idleRss.toFixed(0)} MB`);
  const headers = { authorization: `Bearer ${cairn.key}`, 'content-type': 'application/json' };

  // ---- Ingest: concurrent POSTs from empty to the full corpus ------------------------------------------------
  // Each chunk runs twice: first against the write ceiling (raw INSERT + FTS5, its own file growing alongside),
  // then against Cairn, so each chunk's p99 has the p99 the same load gets from the ceiling at the same size.
  if (runs('ingest'))
    console.log(
      `\nIngest of ${settings.ingest.toLocaleString('en')} memories, 32 concurrent POST /api/v1/memories (each chunk first against the ceiling: ${WRITE_CEILING_NAME})`,
    );
  const chunks: {
    rate: number;
    p50: number;
    p99: number;
    max: number;
    serverP99: string;
    ceiling: { rate: number; p99: number };
  }[] = [];
  const ingestCeiling = runs('ingest') ? await startWriteCeiling('ingest-ceiling.db') : undefined;
  const ingestChunk = (url: string, requestHeaders: Record<string, string>) =>
    autocannon({
      url,
      connections: 32,
      amount: settings.chunk,
      sampleInt: AMOUNT_SAMPLE_MS,
      requests: [
        { method: 'POST', headers: requestHeaders, setupRequest: (request) => ({ ...request, body: memoryBody() }) },
      ],
    });
  for (let done = 0; ingestCeiling && done < settings.ingest; done += settings.chunk) {
    const ceiling = await ingestChunk(ingestCeiling.url, { 'content-type': 'application/json' });
    if (ceiling.non2xx + ceiling.errors > 0)
      throw new Error(`ingest ceiling: ${ceiling.non2xx} non-2xx, ${ceiling.errors} errors`);
    // dedupe=false: the seeded texts repeat, and the corpus must hold every one (as before issue 18).
    const r = await ingestChunk(`${cairn.base}/api/v1/memories?dedupe=false`, headers);
    if (r.non2xx + r.errors > 0) throw new Error(`ingest: ${r.non2xx} non-2xx, ${r.errors} errors`);
    const slow = slowLog.next('POST', '/api/v1/memories');
    chunks.push({
      rate: settings.chunk / r.duration,
      p50: r.latency.p50,
      p99: r.latency.p99,
      max: r.latency.max,
      serverP99: serverP99(slow, settings.chunk, SLOW_MS),
      ceiling: { rate: settings.chunk / ceiling.duration, p99: ceiling.latency.p99 },
    });
    const c = chunks.at(-1) as (typeof chunks)[number];
    const share = ((100 * slow.length) / settings.chunk).toFixed(2);
    console.log(
      `  ${String(done + settings.chunk).padStart(7)} memories   ${c.rate.toFixed(0).padStart(5)}/s   p50 ${c.p50} ms   p99 ${c.p99} ms   max ${c.max} ms   server p99 ${c.serverP99} (${share}% ≥ ${SLOW_MS} ms)   ceiling ${c.ceiling.rate.toFixed(0)}/s p99 ${c.ceiling.p99} ms`,
    );
  }
  ingestCeiling?.process.kill();
  const first = chunks[0];
  const last = chunks.at(-1);
  if (first && last) {
    const ingestRatio = last.rate / first.rate;
    const p99Ratios = chunks.map((c) => c.p99 / Math.max(c.ceiling.p99, 1));
    console.log(`  last chunk / first chunk: ${ingestRatio.toFixed(2)} (goal ≥ 0.8)`);
    console.log(
      `  p99 / the ceiling's p99 under the same load, per chunk (min–median–max): ${spread(p99Ratios, 2)}; the ceiling's own p99 ${spread(
        chunks.map((c) => c.ceiling.p99),
        0,
        ' ms',
      )}`,
    );
    summary.push(
      `ingest end/start ${ingestRatio.toFixed(2)} (${first.rate.toFixed(0)}→${last.rate.toFixed(0)}/s, p99 ${first.p99}→${last.p99} ms)`,
      `ingest p99 max ${Math.max(...chunks.map((c) => c.p99))} ms (server side: ${worstServerP99(chunks.map((c) => c.serverP99))}; ceiling ${Math.min(
        ...chunks.map((c) => c.ceiling.p99),
      )}–${Math.max(...chunks.map((c) => c.ceiling.p99))} ms; ×${m(p99Ratios, 2)} of it)`,
    );
  }

  // ---- Ingest in batches: POST /api/v1/memories/batch, 100 memories a request ------------------------------
  if (runs('ingest')) {
    const batchBody = () => JSON.stringify({ memories: Array.from({ length: BATCH_SIZE }, benchMemory) });
    const batched = await autocannon({
      url: `${cairn.base}/api/v1/memories/batch`,
      connections: 4,
      amount: batchRequests,
      sampleInt: AMOUNT_SAMPLE_MS,
      requests: [{ method: 'POST', headers, setupRequest: (request) => ({ ...request, body: batchBody() }) }],
    });
    if (batched.non2xx + batched.errors > 0)
      throw new Error(`batch ingest: ${batched.non2xx} non-2xx, ${batched.errors} errors`);
    const batchRate = (batchRequests * BATCH_SIZE) / batched.duration;
    console.log(
      `\nIngest of ${(batchRequests * BATCH_SIZE).toLocaleString('en')} more memories in batches of ${BATCH_SIZE}, 4 concurrent POST /api/v1/memories/batch`,
    );
    console.log(
      `  ${batchRate.toFixed(0)} memories/s   per request p50 ${batched.latency.p50} ms   p99 ${batched.latency.p99} ms   max ${batched.latency.max} ms`,
    );
    summary.push(`batch ingest ${batchRate.toFixed(0)}/s (p99 ${batched.latency.p99} ms per 100)`);
  }

  // ---- Authenticated prompt read against bare node:http -----------------------------------------------------
  if (runs('read')) await readRows(cairn.base, headers, cairn.process.pid);

  // ---- MCP svc_get_memory against REST GET /memories/{id} ---------------------------------------------------
  if (runs('mcp')) await mcpRow(cairn, headers);

  // ---- Durable single writes against a raw INSERT + FTS5 at the same durability ------------------------------
  if (runs('write')) await writeRow(cairn.base, headers, chunks.length * settings.chunk, cairn.process.pid);
  await cairn.stop();
  if (runs('start')) await startRow();
  if (runs('search')) searchRow();
  summary.push(`rss ${idleRss.toFixed(0)} MB`);
  console.log(
    `\nSUMMARY ${backend}${quick ? ' --quick' : ''} ${commit}${dirty ? '+' : ''} ${loader}${pinning ? ' pinned' : ' unpinned'}${
      only.length < ROWS.length ? ` --only ${only.join(',')}` : ''
    } | ${summary.join(' | ')}`,
  );
  // How big the corpus file grew, for the record.
  if (!postgres) console.log(`(SQLite file ${(statSync(join(work, 'cairn.db')).size / 1e6).toFixed(0)} MB)`);
} finally {
  for (const child of children) child.kill();
  await dropDatabase();
  rmSync(work, { recursive: true, force: true });
}

async function readRows(base: string, headers: Record<string, string>, pid: number | undefined) {
  const seconds = settings.seconds;
  const readUrl = await createReadPrompts(base, headers);
  const sample = await (await setupFetch(readUrl, { headers })).text();
  const barePort = await freePort();
  const bareScript = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
  const bare = fork(bareScript, [String(barePort), sample], {
    execPath: pinning ? 'taskset' : process.execPath,
    execArgv: pinning ? ['-c', '0', process.execPath] : [],
  });
  children.push(bare);
  await waitFor(`http://127.0.0.1:${barePort}/`);
  const bareUrl = `http://127.0.0.1:${barePort}/`;
  const read10 = await pairs(
    'GET /api/v1/prompts/{slug} (auth + rate limit + read)',
    'bare node:http, same bytes',
    { url: bareUrl, connections: 10, seconds, pid: bare.pid },
    { url: readUrl, headers, connections: 10, seconds, pid },
  );
  const read50 = await pairs(
    'GET /api/v1/prompts/{slug}, 50 connections',
    'bare node:http, same bytes',
    { url: bareUrl, connections: 50, seconds, pid: bare.pid },
    { url: readUrl, headers, connections: 50, seconds, pid },
  );
  bare.kill();
  summary.push(`read10 ${ratioSummary(read10)}`, `read50 ${ratioSummary(read50)}`);
  if (redis) await countedReadRows(readUrl, headers, sample, pid);
}

/**
 * With Redis, the same read against a second ceiling: bare node:http plus one Redis INCRBY per event-loop
 * turn (counted-ceiling.mjs), the least that api-decisions §4's exact counts across instances cost. The bare
 * ratio above is this ceiling's own ratio times Cairn's ratio to it.
 */
async function countedReadRows(readUrl: string, headers: Record<string, string>, sample: string, pid?: number) {
  const port = await freePort();
  const counted = fork(
    fileURLToPath(new URL('./counted-ceiling.mjs', import.meta.url)),
    [String(port), redis ?? '', sample],
    {
      execPath: pinning ? 'taskset' : process.execPath,
      execArgv: pinning ? ['-c', '0', process.execPath] : [],
    },
  );
  children.push(counted);
  await waitFor(`http://127.0.0.1:${port}/`);
  const ceiling = { url: `http://127.0.0.1:${port}/`, seconds: settings.seconds, pid: counted.pid };
  const name = 'node:http + one Redis INCRBY a turn';
  const cairn = { url: readUrl, headers, seconds: settings.seconds, pid };
  const at10 = await pairs(
    'GET /api/v1/prompts/{slug} against an exact shared count',
    name,
    { ...ceiling, connections: 10 },
    { ...cairn, connections: 10 },
  );
  const at50 = await pairs(
    'GET /api/v1/prompts/{slug} against an exact shared count, 50 connections',
    name,
    { ...ceiling, connections: 50 },
    { ...cairn, connections: 50 },
  );
  counted.kill('SIGTERM');
  summary.push(`read10/counted ${ratioSummary(at10)}`, `read50/counted ${ratioSummary(at50)}`);
}

async function mcpRow(cairn: Cairn, headers: Record<string, string>) {
  const seconds = settings.seconds;
  const mcpKey = spawnSync(
    process.execPath,
    [CLI, 'keys', 'create', '--email', 'bench@example.com', '--name', 'mcp', '--integrations', 'mcp_server'],
    { env: { ...process.env, ...env, DATABASE_URL: cairn.databaseUrl }, encoding: 'utf8' },
  ).stdout.trim();
  const created = await setupFetch(`${cairn.base}/api/v1/memories`, { method: 'POST', headers, body: memoryBody() });
  const { memory_id } = (await created.json()) as { memory_id: string };
  const mcpBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'svc_get_memory', arguments: { memory_id } },
  });
  const mcpHeaders = {
    authorization: `Bearer ${mcpKey}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  const check = await setupFetch(`${cairn.base}/mcp/v1/common`, { method: 'POST', headers: mcpHeaders, body: mcpBody });
  const checkBody = await check.text();
  if (!check.ok || !checkBody.includes(memory_id)) throw new Error(`MCP call failed: ${check.status} ${checkBody}`);
  const mcp = await pairs(
    'MCP tools/call svc_get_memory',
    'REST GET /api/v1/memories/{id}',
    { url: `${cairn.base}/api/v1/memories/${memory_id}`, headers, connections: 10, seconds, pid: cairn.process.pid },
    {
      url: `${cairn.base}/mcp/v1/common`,
      method: 'POST',
      headers: mcpHeaders,
      body: mcpBody,
      connections: 10,
      seconds,
      pid: cairn.process.pid,
    },
  );
  summary.push(`mcp/rest ${m(ratiosOf(mcp).throughput, 3)}`);
}

/** write-ceiling.mjs on a SQLite file of its own in the run's directory, pinned like the server, answering. */
async function startWriteCeiling(file: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const [command, args] = commandLine(
    ...serverPin,
    process.execPath,
    fileURLToPath(new URL('./write-ceiling.mjs', import.meta.url)),
    String(port),
    join(work, file),
  );
  const server = spawn(command, args, { stdio: 'inherit' });
  children.push(server);
  const url = `http://127.0.0.1:${port}/`;
  // A ceiling that never answers (it crashed, or its file cannot be opened) ends the run instead of hanging it.
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const ok = await setupFetch(url, { method: 'POST', body: memoryBody() }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, process: server };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the write ceiling on ${file} did not answer within 30 s`);
}

async function writeRow(base: string, headers: Record<string, string>, memories: number, pid: number | undefined) {
  const seconds = settings.seconds;
  const ceilingServer = await startWriteCeiling('ceiling.db');
  const ceilingUrl = ceilingServer.url;
  const ceilingName = WRITE_CEILING_NAME;
  const ceiling = {
    url: ceilingUrl,
    method: 'POST',
    body: memoryBody,
    connections: 10,
    seconds,
    pid: ceilingServer.process.pid,
  } as const;
  // The create as clients send it, with the duplicate checks of issue 18 (an exact duplicate's lookup and
  // the near-duplicate search), and without them: the same work as the ceiling's.
  const creates = (path: string) =>
    ({ url: `${base}${path}`, method: 'POST', headers, body: memoryBody, connections: 10, seconds, pid }) as const;
  const write = await pairs(
    `POST /api/v1/memories (durable, on ${memories} memories)`,
    ceilingName,
    ceiling,
    creates('/api/v1/memories'),
  );
  const plain = await pairs(
    'POST /api/v1/memories?dedupe=false (the same, without duplicate checks)',
    ceilingName,
    ceiling,
    creates('/api/v1/memories?dedupe=false'),
  );
  ceilingServer.process.kill();
  summary.push(`write ${ratioSummary(write)}`, `write dedupe=false ${ratioSummary(plain)}`);
}

// ---- Start-up: `npm start` and `node` to the first 200 on /healthz --------------------------------------------
async function startRow() {
  async function startTime(command: string[]): Promise<number> {
    const port = await freePort();
    const started = performance.now();
    const [cmd, args] = commandLine(...serverPin, ...command);
    const child = spawn(cmd, args, {
      cwd: ROOT,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn' },
    });
    await waitFor(`http://127.0.0.1:${port}/healthz`);
    const elapsed = performance.now() - started;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-(child.pid ?? 0), 'SIGTERM');
    await exited;
    return elapsed;
  }
  const npmStarts: number[] = [];
  const nodeStarts: number[] = [];
  for (let i = 0; i < settings.starts; i++) {
    npmStarts.push(await startTime(['npm', 'start', '--silent']));
    nodeStarts.push(await startTime([process.execPath, CLI, 'serve']));
  }
  console.log(`\nStart to the first 200 on /healthz (${settings.starts} each, alternating)`);
  console.log(`  npm start   ${spread(npmStarts, 0, ' ms')}`);
  console.log(`  node        ${spread(nodeStarts, 0, ' ms')}`);
  summary.push(`start npm ${m(npmStarts, 0)} ms node ${m(nodeStarts, 0)} ms`);
}

// ---- Memory search (in-process, SQLite) -------------------------------------------------------------------------
function searchRow() {
  const [perUser, others, searches] = settings.search as [string, string, string];
  const resultFile = join(work, 'search.json');
  console.log(`\nMemory search: ${perUser} memories for the user + ${others} for others (bench/search.ts)`);
  const [tsx, tsxArgs] = commandLine(...serverPin, join(ROOT, 'node_modules/.bin/tsx'), join(ROOT, 'bench/search.ts'));
  const search = spawnSync(tsx, tsxArgs, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    env: {
      ...process.env,
      // The search row stays on SQLite: BENCH_DATABASE_URL here names a server to make databases on, not one
      // to load 200,000 memories into (bench/search.ts on PostgreSQL is run by hand, docs/performance.md).
      BENCH_DATABASE_URL: undefined,
      BENCH_MEMORIES: perUser,
      BENCH_OTHER_MEMORIES: others,
      BENCH_SEARCHES: searches,
      BENCH_RESULT: resultFile,
    },
  });
  console.log(search.stdout.replace(/^/gm, '  ').trimEnd());
  const searchResult = JSON.parse(readFileSync(resultFile, 'utf8')) as Record<string, { p50: number; p95: number }>;
  const searchMcp = searchResult.MCP as { p50: number; p95: number };
  const searchMost = searchResult['MCP most'] ?? { p50: Number.NaN, p95: Number.NaN };

  summary.push(
    `search p50/p95 ${searchMcp.p50.toFixed(1)}/${searchMcp.p95.toFixed(1)} ms (most common terms ${searchMost.p50.toFixed(1)}/${searchMost.p95.toFixed(1)})`,
  );
  // BENCH_VECTORS=1 (passed through to bench/search.ts): keywords + the vector scan of the user's memories.
  const hybrid = searchResult.HYBRID;
  if (hybrid) summary.push(`hybrid search p50/p95 ${hybrid.p50.toFixed(1)}/${hybrid.p95.toFixed(1)} ms`);
}
