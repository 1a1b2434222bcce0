/**
 * Where a memory search's time goes on SQLite (docs/memory-search.md, docs/performance.md): the statements
 * a search issues (and the ones it issued before issue 15, `owner+…` and `join`), each timed alone on a database loaded by `BENCH_DB=path npm run bench:search`, per
 * frequency band of the query word. Run: `BENCH_DB=path npx tsx bench/search-profile.ts`.
 */
import Database from 'better-sqlite3';
import { analyze, termFrequencies } from '../src/domain/memories/analyzer.js';
import { bm25 } from '../src/domain/memories/ranking.js';
import { ftsOwnerToken } from '../src/storage/dialects/sqlite/fts.js';
import { userTermPrefix } from '../src/storage/dialects/sqlite/memory-search.js';

const path = process.env.BENCH_DB;
if (!path) throw new Error('BENCH_DB=path of a database loaded by bench/search.ts');
const db = new Database(path, { readonly: true });
const REPEAT = Number(process.env.REPEAT ?? 30);
// e.g. PRAGMAS='mmap_size = 1000000000; cache_size = -64000' to see what the page cache is worth.
for (const pragma of (process.env.PRAGMAS ?? '').split(';').filter((p) => p.trim())) db.pragma(pragma);

const me = db.prepare(`select id from users where email = 'me@example.com'`).get() as { id: string };
const prefix = userTermPrefix(me.id);
const owner = ftsOwnerToken(me.id);
const documents = (
  db.prepare('select documents from memory_search_stats where user_id = ?').get(me.id) as {
    documents: number;
  }
).documents;

const BANDS: Record<string, string[]> = {
  'most (≥ 25%)': ['code', 'use', 'team'],
  'common (1–25%)': ['pen', 'qui', 'zor'],
  'medium (0.1–1%)': ['gorfi', 'rengor', 'dragor'],
  'rare (< 0.1%)': ['fifi', 'torgor'],
};

const words = (word: string) =>
  `{text category tags}:(${analyze(word)
    .map((t) => `"${prefix}${t}"`)
    .join(' OR ')})`;
const df = (word: string) =>
  (db.prepare('select doc from memories_fts_vocab where term = ?').get(prefix + analyze(word)[0]) as { doc: number })
    ?.doc ?? 0;

const joined = db.prepare(`select m.seq, m.project_name, m.priority, m.recency_ms, m.token_count, m.search_terms
  from memories_fts f join memories m on m.seq = f.rowid
  where memories_fts match ? and m.user_id = ? order by f.rowid desc limit ?`);
const read = db.prepare(`select seq, project_name, priority, recency_ms, token_count, search_terms from memories
  where seq in (select value from json_each(?)) and +user_id = ?`);
const vocab = db.prepare('select doc from memories_fts_vocab where term = ?');
const ftsOnly = db.prepare('select rowid from memories_fts where memories_fts match ? order by rowid desc limit ?');
const count = db.prepare('select count(*) n from memories_fts where memories_fts match ?');
const bySeq = (n: number) =>
  db.prepare(`select * from memories where seq in (${Array(n).fill('?').join(',')}) and +user_id = ?`);

function time(run: () => unknown): number {
  run();
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

const rows = [];
for (const [band, list] of Object.entries(BANDS)) {
  for (const word of list) {
    const w = words(word);
    const withOwner = `owner:${owner} AND ${w}`;
    const candidates = joined.all(withOwner, me.id, 501) as Array<{
      seq: number;
      search_terms: string;
      token_count: number;
    }>;
    const terms = analyze(word);
    rows.push({
      band,
      word,
      df: df(word),
      'fts owner+words 501': time(() => ftsOnly.all(withOwner, 501)),
      'fts words 501': time(() => ftsOnly.all(w, 501)),
      'fts+join owner+words 501': time(() => joined.all(withOwner, me.id, 501)),
      'fts words then read 501': time(() =>
        read.all(JSON.stringify((ftsOnly.all(w, 501) as Array<{ rowid: number }>).map((r) => r.rowid)), me.id),
      ),
      'fts+join only high 251': time(() => joined.all(`${withOwner} AND prio:high`, me.id, 251)),
      'count owner+words': time(() => count.get(withOwner)),
      'count words': time(() => count.get(w)),
      'vocab doc': time(() => vocab.get(prefix + terms[0])),
      'bm25 in js': time(() =>
        candidates.map((c) => bm25(termFrequencies(c.search_terms, terms), [1000], documents, c.token_count, 30)),
      ),
      'findBySeq 10': time(() => {
        const seqs = candidates.slice(0, 10).map((c) => c.seq);
        return seqs.length > 0 && bySeq(seqs.length).all(...seqs, me.id);
      }),
    });
  }
}
const format = (v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : v);
console.log(`median of ${REPEAT} runs, ms`);
const columns = Object.keys(rows[0] ?? {});
console.log(columns.join(' | '));
for (const row of rows) console.log(columns.map((c) => format((row as Record<string, unknown>)[c])).join(' | '));
