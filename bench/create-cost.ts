/**
 * CPU per memory create through the service (issue 18, duplicates on write): a SQLite database with
 * INGEST memories of one user (bench/lib.ts's texts, 20 projects), then CREATES timed creates of new
 * texts, with the duplicate checks and (when this version has them) without (`dedupe: false`). In process,
 * no HTTP: `process.cpuUsage` (user + system) per create, and wall time, both averaged.
 *
 *   INGEST=10000 CREATES=1000 npx tsx bench/create-cost.ts
 *   BENCH_DATABASE_URL=postgres://… npx tsx bench/create-cost.ts    the same on a fresh PostgreSQL database
 *
 * Also times batch creates of 100 (`POST /memories/batch`'s service call), BATCHES of them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { OPERATOR } from '../src/domain/accounts/account-actor.js';
import { benchMemory, createPostgresDatabase } from './lib.js';

const INGEST = Number(process.env.INGEST ?? 10_000);
const CREATES = Number(process.env.CREATES ?? 1_000);
const BATCHES = Number(process.env.BATCHES ?? 20);
const postgres = process.env.BENCH_DATABASE_URL
  ? await createPostgresDatabase(process.env.BENCH_DATABASE_URL)
  : undefined;
const url = postgres?.url ?? `sqlite:${join(mkdtempSync(join(tmpdir(), 'cairn-create-cost-')), 'cost.db')}`;
const container = await createContainer(
  loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', USAGE_FLUSH_INTERVAL_MS: '3600000' }),
);
const { services } = container;
const user = await services.users.create(OPERATOR, { email: 'cost@example.com' });
const actor = { userId: user.id, integrations: new Set(['ai_tools', 'cli']), via: 'rest' } as never;
for (let done = 0; done < INGEST; done += 100) {
  await services.memoryBatches.create(actor, { memories: Array.from({ length: 100 }, benchMemory) });
}

/** Words no stored memory holds: a create whose near-duplicate search finds nothing similar. */
const unrelated = () =>
  Array.from({ length: 30 }, () => `u${Math.floor(Math.random() * 36 ** 6).toString(36)}`).join(' ');

async function measure(label: string, options: { dedupe?: boolean }, text: (i: number) => string | undefined) {
  const inputs = Array.from({ length: CREATES }, (_, i) => {
    const m = benchMemory();
    return { ...m, text: text(i) ?? `${m.text} unique${label.length}x${i}` };
  });
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  let near = 0;
  let deduped = 0;
  for (const input of inputs) {
    const created = (await (services.memories.create as (...args: unknown[]) => Promise<Record<string, unknown>>)(
      actor,
      input,
      options,
    )) as { possible_duplicates?: unknown[]; deduped?: true };
    if (created.possible_duplicates) near++;
    if (created.deduped) deduped++;
  }
  const used = process.cpuUsage(cpu);
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(
    `${label}: ${((used.user + used.system) / CREATES / 1000).toFixed(3)} ms CPU, ${(wall / CREATES).toFixed(3)} ms wall per create` +
      ` (${near} with possible_duplicates, ${deduped} deduped)`,
  );
}

console.log(`${INGEST} memories stored on ${postgres ? 'PostgreSQL' : 'SQLite'}; ${CREATES} creates each`);
// bench/lib.ts's texts repeat (a skewed vocabulary, a fixed seed): each new one has stored near duplicates.
await measure('default, bench texts', {}, () => undefined);
await measure('default, unrelated texts', {}, () => unrelated());
await measure('dedupe=false, bench texts', { dedupe: false }, () => undefined);
{
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCHES; i++) {
    await services.memoryBatches.create(actor, { memories: Array.from({ length: 100 }, benchMemory) });
  }
  const used = process.cpuUsage(cpu);
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(
    `batch of 100: ${((used.user + used.system) / BATCHES / 1000).toFixed(2)} ms CPU, ${(wall / BATCHES).toFixed(2)} ms wall per batch`,
  );
}
await container.close();
await postgres?.drop();
