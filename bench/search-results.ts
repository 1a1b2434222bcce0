/**
 * Ranked results of a fixed set of memory searches, one JSON line each (ids, scores, raw BM25, total), on a
 * copy of a database loaded by `BENCH_DB=path npm run bench:search`, with a fixed clock and no access
 * written back: run it before and after a change to the search path and compare the files byte for byte
 * (docs/memory-search.md). `BENCH_DB=path OUT=file npx tsx bench/search-results.ts`.
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { OPERATOR } from '../src/domain/accounts/account-actor.js';
import type { Integration } from '../src/domain/accounts/integrations.js';
import type { Actor } from '../src/domain/common/actor.js';
import type { Priority } from '../src/domain/memories/memory-schemas.js';
import { COMMON, VOCABULARY } from './search-vocabulary.js';

const source = process.env.BENCH_DB;
const output = process.env.OUT;
if (!source || !output) throw new Error('BENCH_DB=path of a database loaded by bench/search.ts and OUT=file');
const copy = `${source}.results`;
copyFileSync(source, copy);
const config = loadConfig({
  ...process.env,
  DATABASE_URL: `sqlite:${copy}`,
  LOG_LEVEL: 'silent',
  USAGE_FLUSH_INTERVAL_MS: '3600000',
});
const container = await createContainer(config, { clock: { now: () => new Date('2026-12-01T00:00:00.000Z') } });
const user = await container.services.users.requireByEmail(OPERATOR, 'me@example.com');
const me: Actor = { userId: user.id, integrations: new Set<Integration>(['ai_tools', 'cli']), via: 'operator' };

// Words of each frequency band of bench/search.ts.
const words = [...COMMON, ...VOCABULARY.slice(0, 12), ...VOCABULARY.slice(200, 206), ...VOCABULARY.slice(3000, 3004)];
const searches = [
  ...words,
  ...words.slice(0, 8).map((w, i) => `${w} ${words[words.length - 1 - i]}`),
  'code test review',
  '',
];
const projects = [undefined, 'org3/api', 'org7', 'org12/web', 'org5/api/v2', 'nowhere'];
const shapes: Array<{
  offset: number;
  limit: number;
  withTotal?: boolean;
  priority?: Priority;
  category?: string;
  tags?: string[];
}> = [
  { offset: 0, limit: 10 },
  { offset: 0, limit: 20, withTotal: true },
  { offset: 20, limit: 20, withTotal: true },
  { offset: 0, limit: 10, priority: 'low', withTotal: true },
  { offset: 0, limit: 10, category: 'coding_standards', withTotal: true },
  { offset: 0, limit: 10, tags: ['code'], withTotal: true },
];

const lines: string[] = [];
for (const search of searches) {
  for (const project_name of projects) {
    for (const shape of shapes) {
      const result = await container.services.memories.search(me, {
        search,
        ...(project_name !== undefined && { project_name }),
        ...shape,
        tags: shape.tags ?? [],
        explain: true,
      });
      const hits = result.memories.map((m) => [m.memory_id, m.score, m.score_parts?.bm25]);
      lines.push(JSON.stringify({ search, project_name, shape, total: result.total, hits }));
    }
  }
}
writeFileSync(output, `${lines.join('\n')}\n`);
await container.close();
for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
console.log(`${lines.length} searches written to ${output}`);
