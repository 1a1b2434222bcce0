/**
 * Tuning aid: runs the tuned queries once under the settings given as JSON in TRY (keyword tuning and
 * ranking weights), e.g. TRY='{"prefix":0.3}' npx tsx eval/search/try.ts. Prints the tuned table and misses.
 */
import { KEYWORD_TUNING } from '../../src/domain/memories/keyword-score.js';
import { createTestDatabase } from '../../test/helpers/databases.js';
import { formatTable, openSearchEval } from './run-eval.js';

const settings = JSON.parse(process.env.TRY ?? '{}') as Record<string, number>;
const database = await createTestDatabase('sqlite');
const opened = await openSearchEval(database.url);
try {
  for (const [key, value] of Object.entries(settings)) {
    if (key in KEYWORD_TUNING.weights) Object.assign(KEYWORD_TUNING.weights, { [key]: value });
    else if (key in opened.ranking.weights) Object.assign(opened.ranking.weights, { [key]: value });
    else Object.assign(KEYWORD_TUNING, { [key]: value });
  }
  const run = await opened.run('tuned');
  console.log(formatTable(run.summaries, 'tuned'));
  for (const r of run.results) {
    if (r.metrics.cairn.r5 < r.metrics.bm25.r5 || r.metrics.cairn.mrr < r.metrics.bm25.mrr)
      console.log(
        `  worse than BM25: [${r.query.group}] "${r.query.search}" @${r.query.project ?? '-'} got ${r.cairn.slice(0, 5).join(' ')}`,
      );
  }
} finally {
  await opened.close();
  await database.drop();
}
