/**
 * Tuning aid (not run by CI): loads the set once, then runs the *tuned* queries under a grid of ranking
 * parameters and prints the best settings by mean R@5 + MRR over the tuned part, keeping only settings where
 * every group is at least as good as plain BM25 on that part. Held-out queries are never scored here.
 *   npx tsx eval/search/tune.ts
 */

import { KEYWORD_TUNING } from '../../src/domain/memories/keyword-score.js';
import { createTestDatabase } from '../../test/helpers/databases.js';
import { openSearchEval } from './run-eval.js';

const database = await createTestDatabase('sqlite');
const opened = await openSearchEval(database.url);
const grid = {
  synonym: [0.5, 0.7, 0.9],
  prefix: [0.3, 0.5, 0.7],
  typo: [0.8],
  coverage: [0.3, 0.5, 0.7],
  proximity: [0.15, 0.3, 0.5],
  priority: [0.1, 0.15, 0.2],
  project: [0.1, 0.15, 0.2],
};
const rows: Array<{ score: number; ok: boolean; settings: string }> = [];
try {
  for (const synonym of grid.synonym)
    for (const prefix of grid.prefix)
      for (const typo of grid.typo)
        for (const coverage of grid.coverage)
          for (const proximity of grid.proximity)
            for (const priority of grid.priority)
              for (const project of grid.project) {
                Object.assign(KEYWORD_TUNING.weights, { synonym, prefix, typo });
                Object.assign(KEYWORD_TUNING, { coverage, proximity });
                Object.assign(opened.ranking.weights, { priority, project });
                const run = await opened.run('tuned');
                const tuned = run.summaries.filter((s) => s.split === 'tuned');
                const all = tuned.find((s) => s.group === 'all');
                if (!all) continue;
                const ok = tuned.every((s) => s.cairn.r5 >= s.bm25.r5 - 1e-9 && s.cairn.mrr >= s.bm25.mrr - 1e-9);
                rows.push({
                  score: all.cairn.r5 + all.cairn.mrr,
                  ok,
                  settings: `synonym ${synonym} prefix ${prefix} typo ${typo} coverage ${coverage} proximity ${proximity} priority ${priority} project ${project} → R@5 ${all.cairn.r5.toFixed(3)} MRR ${all.cairn.mrr.toFixed(3)}`,
                });
              }
  rows.sort((a, b) => Number(b.ok) - Number(a.ok) || b.score - a.score);
  for (const row of rows.slice(0, 25)) console.log(row.ok ? 'ok ' : 'BAD', row.settings);
} finally {
  await opened.close();
  await database.drop();
}
