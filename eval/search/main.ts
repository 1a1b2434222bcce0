/**
 * `npm run eval:search`: the labelled search evaluation (docs/memory-search.md, *Evaluation*). Prints per
 * group R@5, R@10, MRR and nDCG@10 for Cairn's search beside plain BM25, for all queries, the tuned part and
 * the held-out part, on SQLite and (when TEST_DATABASE_URL is set) on PostgreSQL.
 *
 *   --split tuned       print only the tuned part (what tuning may look at)
 *   --misses            list the tuned queries whose best answer is not first (held-out ones stay hidden
 *                       unless --split held-out or all is given with --misses)
 *   --json FILE         write every query's ranked ids and metrics
 *   --hybrid            also run the hybrid path (keywords + vectors) with the deterministic test embedder
 *                       (test/helpers/embedder.ts, a real HTTP server speaking the OpenAI protocol)
 */
import { writeFileSync } from 'node:fs';
import { createTestDatabase, DIALECTS } from '../../test/helpers/databases.js';
import { TestEmbedder } from '../../test/helpers/embedder.js';
import { EVAL_EMBEDDING_MODEL, EVAL_SYNONYMS, type EvalRun, formatTable, runSearchEval } from './run-eval.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const split = (option('--split') ?? 'all') as 'all' | 'tuned' | 'held-out';
const showMisses = args.includes('--misses');
const json = option('--json');
const hybrid = args.includes('--hybrid');

function report(dialect: string, run: EvalRun) {
  console.log(`\n## ${dialect}\n`);
  const splits = split === 'all' ? (['all', 'tuned', 'held-out'] as const) : [split];
  for (const s of splits) console.log(`${formatTable(run.summaries, s)}\n`);
  if (!showMisses) return;
  const missSplit = split === 'all' ? 'tuned' : split;
  for (const r of run.results) {
    if (r.query.split !== missSplit) continue;
    const best = Math.max(...r.query.grades.values());
    if ((r.query.grades.get(r.cairn[0] ?? '') ?? 0) >= best && r.metrics.cairn.r5 === 1) continue;
    const shown = r.cairn
      .slice(0, 5)
      .map((id) => `${id}${r.query.grades.has(id) ? `(${r.query.grades.get(id)})` : ''}`);
    console.log(
      `  [${r.query.group}] "${r.query.search}" @${r.query.project ?? '-'}  want ${[...r.query.grades].map(([id, g]) => `${id}=${g}`).join(' ')}\n      got ${shown.join(' ')}`,
    );
  }
}

const all: Record<string, EvalRun> = {};
for (const dialect of DIALECTS) {
  const database = await createTestDatabase(dialect);
  try {
    const run = await runSearchEval(database.url);
    all[dialect] = run;
    report(dialect, run);
  } finally {
    await database.drop();
  }
  if (!hybrid) continue;
  const embedder = await TestEmbedder.start(EVAL_SYNONYMS);
  const hybridDatabase = await createTestDatabase(dialect);
  try {
    const run = await runSearchEval(
      hybridDatabase.url,
      embedder.env(EVAL_EMBEDDING_MODEL, {
        ...(process.env.MEMORY_WEIGHT_SEMANTIC && { MEMORY_WEIGHT_SEMANTIC: process.env.MEMORY_WEIGHT_SEMANTIC }),
      }),
    );
    all[`${dialect} hybrid`] = run;
    report(`${dialect}, hybrid (keywords + deterministic vectors)`, run);
  } finally {
    await hybridDatabase.drop();
    await embedder.close();
  }
}
if (json) {
  writeFileSync(
    json,
    JSON.stringify(
      Object.fromEntries(
        Object.entries(all).map(([dialect, run]) => [
          dialect,
          {
            summaries: run.summaries,
            results: run.results.map((r) => ({
              line: r.query.line,
              group: r.query.group,
              split: r.query.split,
              search: r.query.search,
              project: r.query.project ?? null,
              cairn: r.cairn,
              bm25: r.bm25,
              metrics: r.metrics,
            })),
          },
        ]),
      ),
      null,
      2,
    ),
  );
}
