import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import type { Actor } from '../../src/domain/common/actor.js';
import type { Clock } from '../../src/domain/common/clock.js';
import type { RankingConfig } from '../../src/domain/memories/ranking.js';
import { type EvalMemory, type EvalQuery, GROUPS, type Group, loadEvalSet, type Split } from './corpus.js';
import { mean, type QueryMetrics, queryMetrics } from './metrics.js';

/**
 * Runs the labelled set (eval/search) through the real memory search: a real Cairn container on a real
 * database (the URL given), the memories created through the memory service with their ages on an injected
 * clock, and every query through `services.memories.search` — the function REST and MCP call. Plain BM25
 * (SQLite FTS5 `bm25()`, Porter stemming, the words OR-ed, over the same project scope) ranks the same
 * memories in the same run as the baseline.
 */
export const NOW = '2026-11-20T12:00:00.000Z';
/** The deterministic test embedder's model for the hybrid run (test/helpers/embedder.ts: 256 dimensions). */
export const EVAL_EMBEDDING_MODEL = 'hash-256';

/**
 * What the deterministic embedder "knows" in the hybrid run: general associations a real embedding model
 * has (not the answers' words copied), so paraphrases with no shared keyword or thesaurus entry land near
 * their memories. Kept apart from the keyword search's thesaurus on purpose.
 */
export const EVAL_SYNONYMS: string[][] = [
  ['crashloop', 'crashloopbackoff', 'restarting', 'restart', 'loop', 'crash', 'crashe'],
  ['accessibility', 'voiceover', 'blind', 'screen', 'usable', 'a11y'],
  ['status', 'customer', 'customers', 'telling', 'communication', 'announce', 'public'],
  ['chargeback', 'chargebacks', 'dispute', 'disputes', 'pays'],
  ['mobile', 'phone', 'phones', 'device', 'devices', 'offline'],
  ['late', 'arriving', 'delayed', 'lookback'],
  ['dashboard', 'dashboards', 'report', 'numbers', 'number', 'wrong', 'off'],
  ['ios', 'iphone', 'ipad'],
  ['stop', 'halt', 'pause', 'bad'],
  ['split', 'splitting', 'stack', 'big', 'large', 'larger'],
  ['cost', 'costs', 'expensive', 'spend', 'budget', 'bill', 'approval', 'sign'],
  ['force', 'forced', 'old', 'minimumversion', 'versions', 'update'],
];
const DAY_MS = 86_400_000;
const DEPTH = 10;

export interface QueryResult {
  query: EvalQuery;
  cairn: string[];
  bm25: string[];
  metrics: { cairn: QueryMetrics; bm25: QueryMetrics };
}

export interface GroupSummary {
  group: Group | 'all';
  split: Split | 'all';
  n: number;
  cairn: QueryMetrics;
  bm25: QueryMetrics;
}

export interface EvalRun {
  databaseUrl: string;
  results: QueryResult[];
  summaries: GroupSummary[];
}

function settableClock(start: string): Clock & { set(ms: number): void } {
  let now = Date.parse(start);
  return { now: () => new Date(now), set: (ms) => (now = ms) };
}

/** Is `project` (a memory's) in the candidate scope of a search in `context`? */
function inScope(project: string | null, context: string | undefined): boolean {
  if (context === undefined || project === null) return true;
  return project === context || project.startsWith(`${context}/`) || context.startsWith(`${project}/`);
}

/** Plain BM25: FTS5 with Porter stemming over text, category and tags; the query's words OR-ed. */
function createBm25(memories: readonly EvalMemory[]) {
  const db = new Database(':memory:');
  db.exec(`create virtual table docs using fts5(id unindexed, body, tokenize = 'porter unicode61')`);
  const insert = db.prepare('insert into docs (id, body) values (?, ?)');
  for (const m of memories) insert.run(m.id, [m.text, m.category ?? '', m.tags.join(' ')].join(' '));
  const byId = new Map(memories.map((m) => [m.id, m]));
  const newestFirst = [...memories].sort((a, b) => a.ageDays - b.ageDays);
  const search = db.prepare('select id from docs where docs match ? order by bm25(docs)');
  return {
    rank(query: EvalQuery): string[] {
      const words =
        query.search
          .normalize('NFC')
          .toLowerCase()
          .match(/[\p{L}\p{N}]+/gu) ?? [];
      // No words: BM25 has nothing to rank, so the baseline is the plain list (newest first).
      const ids =
        words.length === 0
          ? newestFirst.map((m) => m.id)
          : (search.all(words.map((w) => `"${w}"`).join(' OR ')) as Array<{ id: string }>).map((row) => row.id);
      return ids.filter((id) => inScope(byId.get(id)?.project ?? null, query.project)).slice(0, DEPTH);
    },
    close: () => db.close(),
  };
}

export function summarise(results: readonly QueryResult[]): GroupSummary[] {
  const summaries: GroupSummary[] = [];
  for (const split of ['all', 'tuned', 'held-out'] as const) {
    for (const group of [...GROUPS, 'all'] as const) {
      const chosen = results.filter(
        (r) => (split === 'all' || r.query.split === split) && (group === 'all' || r.query.group === group),
      );
      if (chosen.length === 0) continue;
      summaries.push({
        group,
        split,
        n: chosen.length,
        cairn: mean(chosen.map((r) => r.metrics.cairn)),
        bm25: mean(chosen.map((r) => r.metrics.bm25)),
      });
    }
  }
  return summaries;
}

export interface OpenEval {
  /** Runs every query (or one part's); nothing a run does changes the next one's answers. */
  run(only?: Split): Promise<EvalRun>;
  /** The ranking configuration the service reads (for tuning: change it in place between runs). */
  ranking: RankingConfig;
  close(): Promise<void>;
}

/** Loads the set into a fresh database at `databaseUrl` (which must be empty), ready to run. */
export async function openSearchEval(databaseUrl: string, env: Record<string, string> = {}): Promise<OpenEval> {
  const { memories, queries } = loadEvalSet();
  const clock = settableClock(NOW);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    // Searches count as accesses; nothing is flushed during the run, so every query sees the same recency.
    USAGE_FLUSH_INTERVAL_MS: '3600000',
    ...env,
  });
  const container = await createContainer(config, { clock });
  const bm25 = createBm25(memories);
  const close = async () => {
    bm25.close();
    await container.close();
  };
  try {
    const user = await container.services.users.create(OPERATOR, { email: 'eval@brightwater.example' });
    const actor: Actor = { userId: user.id, integrations: new Set(['ai_tools']), via: 'mcp' };
    const localId = new Map<string, string>();
    // Oldest first, each at its own age, so creation order and recency agree with the ages.
    for (const memory of [...memories].sort((a, b) => b.ageDays - a.ageDays)) {
      clock.set(Date.parse(NOW) - memory.ageDays * DAY_MS);
      const created = await container.services.memories.create(actor, {
        text: memory.text,
        ...(memory.project !== null && { project_name: memory.project }),
        metadata: {
          ...(memory.category !== undefined && { category: memory.category }),
          ...(memory.priority !== undefined && { priority: memory.priority }),
          ...(memory.tags.length > 0 && { tags: memory.tags }),
        },
      });
      localId.set(created.memory_id, memory.id);
    }
    clock.set(Date.parse(NOW));
    // With semantic search configured (the hybrid run), every memory's vector is in before any query.
    await container.embeddings?.indexer.idle();

    const run = async (only?: Split): Promise<EvalRun> => {
      const results: QueryResult[] = [];
      for (const query of queries) {
        if (only !== undefined && query.split !== only) continue;
        const found = await container.services.memories.search(actor, {
          search: query.search,
          ...(query.project !== undefined && { project_name: query.project }),
          offset: 0,
          limit: DEPTH,
          tags: [],
        });
        const cairn = found.memories.map((m) => localId.get(m.memory_id) ?? m.memory_id);
        const baseline = bm25.rank(query);
        results.push({
          query,
          cairn,
          bm25: baseline,
          metrics: { cairn: queryMetrics(cairn, query.grades), bm25: queryMetrics(baseline, query.grades) },
        });
      }
      return { databaseUrl, results, summaries: summarise(results) };
    };
    return { run, ranking: config.ranking, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Loads the set into a fresh database at `databaseUrl` and runs every query once. */
export async function runSearchEval(databaseUrl: string, env: Record<string, string> = {}): Promise<EvalRun> {
  const opened = await openSearchEval(databaseUrl, env);
  try {
    return await opened.run();
  } finally {
    await opened.close();
  }
}

const f = (value: number) => value.toFixed(3);

/** The per-group table: Cairn beside BM25 for one split. */
export function formatTable(summaries: readonly GroupSummary[], split: GroupSummary['split']): string {
  const rows = summaries.filter((s) => s.split === split);
  const header = `| group (${split}) | n | Cairn R@5 | R@10 | MRR | nDCG@10 | BM25 R@5 | R@10 | MRR | nDCG@10 |`;
  const lines = [header, `|${'---|'.repeat(10)}`];
  for (const s of rows) {
    const { cairn: c, bm25: b } = s;
    lines.push(
      `| ${s.group} | ${s.n} | ${f(c.r5)} | ${f(c.r10)} | ${f(c.mrr)} | ${f(c.ndcg10)} | ${f(b.r5)} | ${f(b.r10)} | ${f(b.mrr)} | ${f(b.ndcg10)} |`,
    );
  }
  return lines.join('\n');
}
