import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUPS } from '../../eval/search/corpus.js';
import {
  EVAL_EMBEDDING_MODEL,
  EVAL_SYNONYMS,
  type EvalRun,
  formatTable,
  type GroupSummary,
  runSearchEval,
} from '../../eval/search/run-eval.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { TestEmbedder } from '../helpers/embedder.js';

/**
 * The labelled search evaluation (eval/search, `npm run eval:search`) as a gate: the real memory search on
 * a real database must stay above floors set just under the measured results (docs/memory-search.md,
 * *Evaluation*), and every group must stay at least as good as plain BM25 in the same run. A change that
 * makes search worse on the labelled set fails here; a change that makes it better should raise the floors.
 */
const OVERALL = { r5: 0.95, r10: 0.97, mrr: 0.93, ndcg10: 0.92 };
const HELD_OUT = { r5: 0.92, mrr: 0.9 };
const GROUP_FLOORS: Record<(typeof GROUPS)[number], { r5: number; mrr: number }> = {
  keyword: { r5: 1, mrr: 0.95 },
  question: { r5: 0.95, mrr: 0.95 },
  paraphrase: { r5: 0.8, mrr: 0.75 },
  wordforms: { r5: 0.9, mrr: 0.95 },
  typo: { r5: 0.95, mrr: 0.95 },
  distractor: { r5: 0.95, mrr: 0.95 },
  project: { r5: 0.95, mrr: 0.9 },
  priority: { r5: 0.95, mrr: 0.8 },
  global: { r5: 0.85, mrr: 0.9 },
  empty: { r5: 0.95, mrr: 0.95 },
};

describe.each(DIALECTS)('search evaluation on the labelled set (%s)', (dialect) => {
  let database: TestDatabase;
  let run: EvalRun;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    run = await runSearchEval(database.url);
    // The table in the test output, so a failing run shows where it fell.
    console.info(formatTable(run.summaries, 'all'));
  }, 120_000);
  afterAll(async () => database?.drop());

  const summary = (group: GroupSummary['group'], split: GroupSummary['split']) => {
    const found = run.summaries.find((s) => s.group === group && s.split === split);
    if (!found) throw new Error(`no summary for ${group} / ${split}`);
    return found;
  };

  it('reaches the overall floors, on all queries and on the held-out part', () => {
    const all = summary('all', 'all');
    expect(all.n).toBeGreaterThanOrEqual(150);
    expect(all.cairn.r5).toBeGreaterThanOrEqual(OVERALL.r5);
    expect(all.cairn.r10).toBeGreaterThanOrEqual(OVERALL.r10);
    expect(all.cairn.mrr).toBeGreaterThanOrEqual(OVERALL.mrr);
    expect(all.cairn.ndcg10).toBeGreaterThanOrEqual(OVERALL.ndcg10);
    const heldOut = summary('all', 'held-out');
    expect(heldOut.cairn.r5).toBeGreaterThanOrEqual(HELD_OUT.r5);
    expect(heldOut.cairn.mrr).toBeGreaterThanOrEqual(HELD_OUT.mrr);
  });

  it.each(GROUPS)('keeps group %s above its floors and at least as good as plain BM25', (group) => {
    const s = summary(group, 'all');
    expect(s.cairn.r5).toBeGreaterThanOrEqual(GROUP_FLOORS[group].r5);
    expect(s.cairn.mrr).toBeGreaterThanOrEqual(GROUP_FLOORS[group].mrr);
    expect(s.cairn.r5).toBeGreaterThanOrEqual(s.bm25.r5 - 1e-9);
    expect(s.cairn.mrr).toBeGreaterThanOrEqual(s.bm25.mrr - 1e-9);
  });
});

/**
 * The hybrid path end to end (issue 17): the same set with semantic search on, vectors from the
 * deterministic embedder over real HTTP (test/helpers/embedder.ts with EVAL_SYNONYMS). Paraphrases must
 * do better than keywords alone in the same run, and nothing overall may fall under the keyword floors.
 */
describe.each(DIALECTS)('search evaluation through the hybrid path (%s)', (dialect) => {
  let keywordDb: TestDatabase;
  let hybridDb: TestDatabase;
  let embedder: TestEmbedder;
  let keyword: EvalRun;
  let hybrid: EvalRun;
  beforeAll(async () => {
    embedder = await TestEmbedder.start(EVAL_SYNONYMS);
    keywordDb = await createTestDatabase(dialect);
    hybridDb = await createTestDatabase(dialect);
    keyword = await runSearchEval(keywordDb.url);
    hybrid = await runSearchEval(hybridDb.url, embedder.env(EVAL_EMBEDDING_MODEL));
    console.info(formatTable(hybrid.summaries, 'all'));
  }, 240_000);
  afterAll(async () => {
    await embedder?.close();
    await keywordDb?.drop();
    await hybridDb?.drop();
  });

  const of = (run: EvalRun, group: GroupSummary['group']) => {
    const found = run.summaries.find((s) => s.group === group && s.split === 'all');
    if (!found) throw new Error(`no summary for ${group}`);
    return found.cairn;
  };

  it('finds paraphrases better than keywords alone', () => {
    expect(of(hybrid, 'paraphrase').r5).toBeGreaterThan(of(keyword, 'paraphrase').r5);
    expect(of(hybrid, 'paraphrase').mrr).toBeGreaterThan(of(keyword, 'paraphrase').mrr);
  });

  it('keeps the overall keyword floors', () => {
    const all = of(hybrid, 'all');
    expect(all.r5).toBeGreaterThanOrEqual(OVERALL.r5);
    expect(all.mrr).toBeGreaterThanOrEqual(OVERALL.mrr);
    expect(all.ndcg10).toBeGreaterThanOrEqual(OVERALL.ndcg10);
  });
});
