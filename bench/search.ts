/**
 * Memory search benchmark (docs/memory-search.md): 100,000 memories for one user plus 100,000 for other
 * users on SQLite, then search latency p50/p95 in-process over a rotating set of 40+ query terms of mixed
 * frequency (words found in most memories included). Run with `npm run bench:search`.
 *
 * `BENCH_VECTORS=1` turns semantic search on (issue 17): every memory gets a vector from the deterministic
 * test embedder (test/helpers/embedder.ts, a real HTTP server in this process; `BENCH_VECTOR_DIMS`, default
 * 384), and a hybrid measurement (keywords + the exact vector scan over the user's 100,000 vectors) is added.
 * Query vectors are cached per process after their first use, so the figure is Cairn's own cost, not the
 * provider's. Loading embeds 200,000 memories through HTTP: expect several minutes.
 * `BENCH_DATABASE_URL=postgres://…` runs on PostgreSQL instead (pgvector where the database offers it, else the
 * bounded bytea scan); `BENCH_REUSE=1` reuses the memories already in it (see `reuse` below).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { OPERATOR } from '../src/domain/accounts/account-actor.js';
import type { Integration } from '../src/domain/accounts/integrations.js';
import type { Actor } from '../src/domain/common/actor.js';
import { TestEmbedder } from '../test/helpers/embedder.js';
import { COMMON, VOCABULARY } from './search-vocabulary.js';

const PER_USER = Number(process.env.BENCH_MEMORIES ?? 100_000);
const OTHERS = Number(process.env.BENCH_OTHER_MEMORIES ?? 100_000);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 2_000);

// Deterministic pseudo-random numbers, so runs are comparable.
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

// Zipf-like: low indexes are frequent, the tail is rare.
const zipfWord = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)] as string;

function memoryText(): string {
  const words: string[] = [];
  const length = 12 + Math.floor(random() * 40);
  for (let i = 0; i < length; i++) words.push(random() < 0.25 ? pick(COMMON) : zipfWord());
  return words.join(' ');
}

const PROJECTS = Array.from({ length: 20 }, (_, i) => `org${i}`).flatMap((top) => [
  top,
  `${top}/api`,
  `${top}/web`,
  `${top}/api/v2`,
]);

// BENCH_DB=path keeps the loaded database there and reuses it on the next run (for iterating on search).
const kept = process.env.BENCH_DB;
const dir = kept ? undefined : mkdtempSync(join(tmpdir(), 'cairn-search-bench-'));
const databasePath = kept ?? join(dir as string, 'bench.db');
// BENCH_REUSE=1 with BENCH_DATABASE_URL reuses the memories already there, e.g. copied from a kept SQLite
// database with `cairn db copy` (a minute, where loading 200,000 memories through the service takes most of an hour).
const reuse = process.env.BENCH_DATABASE_URL ? process.env.BENCH_REUSE === '1' : kept !== undefined && existsSync(kept);
const vectors = process.env.BENCH_VECTORS === '1';
const embedder = vectors ? await TestEmbedder.start() : undefined;
const config = loadConfig({
  ...process.env,
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? `sqlite:${databasePath}`,
  LOG_LEVEL: 'silent',
  ...embedder?.env(`hash-${process.env.BENCH_VECTOR_DIMS ?? 384}`, {
    EMBEDDINGS_BATCH_SIZE: '256',
    EMBEDDINGS_QUEUE_MAX: '1000000',
    EMBEDDINGS_CONCURRENCY: '4',
  }),
});
const container = await createContainer(config);
const { db } = container.database;
const all = new Set<Integration>(['ai_tools', 'cli']);

async function load(email: string, count: number): Promise<Actor> {
  const user = await container.services.users.create(OPERATOR, { email });
  const actor: Actor = { userId: user.id, integrations: all, via: 'operator' };
  for (let i = 0; i < count; i++) {
    const r = random();
    await container.services.memories.create(
      actor,
      {
        text: memoryText(),
        project_name: r < 0.2 ? null : pick(PROJECTS),
        metadata: {
          priority: r < 0.35 ? 'high' : r < 0.6 ? 'low' : 'medium',
          category: pick(['coding_standards', 'project_specs', 'workflow_procedures', 'personal_preferences']),
          tags: [zipfWord(), pick(COMMON)],
        },
        // The generator's texts repeat (its floating-point LCG cycles): without this, creates deduplicated
        // them and the "100,000 memories" were a few hundred.
      },
      { dedupe: false },
    );
  }
  return actor;
}

// e.g. BENCH_PRAGMAS='cache_size = -64000' to try connection settings.
for (const pragma of (process.env.BENCH_PRAGMAS ?? '').split(';').filter((p) => p.trim())) {
  await sql.raw(`pragma ${pragma}`).execute(db);
}

let started = performance.now();
let me: Actor;
if (reuse) {
  const user = await container.services.users.requireByEmail(OPERATOR, 'me@example.com');
  me = { userId: user.id, integrations: all, via: 'operator' };
  console.log(`reusing ${process.env.BENCH_DATABASE_URL ? 'the PostgreSQL database' : databasePath}`);
} else {
  // Loading is not what is measured: commits need not reach the disk.
  if (!process.env.BENCH_DATABASE_URL) await sql`pragma synchronous = off`.execute(db);
  me = await load('me@example.com', PER_USER);
  for (let u = 0; u < 10; u++) await load(`other${u}@example.com`, OTHERS / 10);
  if (!process.env.BENCH_DATABASE_URL) {
    await sql`pragma synchronous = full`.execute(db);
    await sql`pragma optimize`.execute(db);
  }
  console.log(`loaded ${PER_USER} + ${OTHERS} memories in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (container.embeddings) {
  const t0 = performance.now();
  await container.embeddings.indexer.idle();
  const rest = await container.embeddings.indexer.backfill();
  const counts = (await container.embeddings.indexer.status()).counts;
  console.log(
    `vectors: ${JSON.stringify(counts)} (${rest.embedded} by backfill) in ${((performance.now() - t0) / 1000).toFixed(1)} s more`,
  );
}

// Query terms by document frequency among my memories: common, medium and rare ones.
const frequency = async (term: string) =>
  (await container.services.memories.search(me, { search: term, offset: 0, limit: 1, tags: [], withTotal: true }))
    .total;
const candidates = [
  ...COMMON,
  ...VOCABULARY.slice(0, 30),
  ...VOCABULARY.slice(200, 220),
  ...VOCABULARY.slice(3000, 3020),
];
// One at a time: a hundred concurrent searches wait on a PostgreSQL pool of ten, and with vectors each holds a
// connection for a whole vector scan, long enough for the others to time out acquiring one.
const measured: { term: string; df: number }[] = [];
for (const term of candidates) measured.push({ term, df: await frequency(term) });
const buckets = {
  'most (≥ 25%)': measured.filter((m) => m.df >= PER_USER / 4),
  'common (1–25%)': measured.filter((m) => m.df >= PER_USER / 100 && m.df < PER_USER / 4),
  'medium (0.1–1%)': measured.filter((m) => m.df >= PER_USER / 1000 && m.df < PER_USER / 100),
  'rare (< 0.1%)': measured.filter((m) => m.df < PER_USER / 1000),
};
const terms = Object.values(buckets)
  .flatMap((bucket) => bucket.slice(0, 12))
  .map((m) => m.term);
const queries = [...terms, ...terms.slice(0, 8).map((t, i) => `${t} ${terms[terms.length - 1 - i]}`)];
for (const [name, bucket] of Object.entries(buckets)) {
  console.log(
    `${name.padEnd(16)} ${bucket.length} terms, e.g. ${bucket
      .slice(0, 3)
      .map((m) => `${m.term} (${m.df})`)
      .join(', ')}`,
  );
}
console.log(`${queries.length} queries (${terms.length} single words + ${queries.length - terms.length} two-word)`);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function measure(label: string, run: (query: string, i: number) => Promise<unknown>) {
  for (let i = 0; i < 100; i++) await run(queries[i % queries.length] as string, i); // warm up
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const byBucket = new Map<string, number[]>();
  for (let i = 0; i < SEARCHES; i++) {
    const query = queries[i % queries.length] as string;
    const t0 = performance.now();
    await run(query, i);
    const elapsed = performance.now() - t0;
    times.push(elapsed);
    const bucket = Object.entries(buckets).find(([, b]) => b.some((m) => m.term === query))?.[0] ?? 'two-word';
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), elapsed]);
  }
  const { user, system } = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  results[label.split(' ')[1]?.replace(/[(:]/g, '') ?? label] = {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
  };
  console.log(
    `\n${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, max ${times.at(-1)?.toFixed(1)} ms, CPU ${((user + system) / 1000 / SEARCHES).toFixed(2)} ms per search`,
  );
  for (const [bucket, values] of byBucket) {
    values.sort((a, b) => a - b);
    results[`${label.split(' ')[1]?.replace(/[(:]/g, '')} ${bucket.split(' ')[0]}`] = {
      p50: percentile(values, 50),
      p95: percentile(values, 95),
    };
    console.log(
      `  ${bucket.padEnd(16)} p50 ${percentile(values, 50).toFixed(2)} ms  p95 ${percentile(values, 95).toFixed(2)} ms`,
    );
  }
}

// For bench/run.ts: p50/p95 of each measurement (`MCP`, `REST`, `context`) and of its groups (`MCP most`, …).
const results: Record<string, { p50: number; p95: number }> = {};
started = performance.now();
await measure('search (MCP shape: limit 10, project context, no total)', (search, i) =>
  container.services.memories.search(me, {
    search,
    ...(i % 2 === 0 && { project_name: pick(PROJECTS) }),
    offset: 0,
    limit: 10,
    tags: [],
  }),
);
await measure('search (REST shape: per_page 20 with total)', (search) =>
  container.services.memories.search(me, { search, offset: 0, limit: 20, tags: [], withTotal: true }),
);
if (container.embeddings) {
  await measure('search (HYBRID: keywords + vectors, MCP shape)', (search, i) =>
    container.services.memories.search(me, {
      search,
      ...(i % 2 === 0 && { project_name: pick(PROJECTS) }),
      offset: 0,
      limit: 10,
      tags: [],
    }),
  );
}
await measure('automatic context (empty search, project given)', () =>
  container.services.memories.search(me, { search: '', project_name: pick(PROJECTS), offset: 0, limit: 10, tags: [] }),
);

if (process.env.BENCH_RESULT) {
  writeFileSync(process.env.BENCH_RESULT, JSON.stringify(results));
}
await container.close();
await embedder?.close();
if (dir) rmSync(dir, { recursive: true, force: true });
