/**
 * Per-stage cost of a memory write (docs/performance.md): the statements the memory store runs for one
 * `POST /api/v1/memories`, issued directly on better-sqlite3 in a loop and timed one by one, on a database
 * migrated by Cairn itself. Prints, every 10,000 writes, median/p99/max ms and the total time per stage.
 * The COMMIT stage holds the FTS5 flush and merge work (FTS5 writes its segments when the transaction
 * commits), any WAL checkpoint, and the fsync.
 *
 *   npx tsx bench/write-stages.ts              N=100000 SYNC=OFF to see the CPU work without the fsync
 *   N=… DB=/path/file.db SKIPDEL=1 AUTOMERGE=… for experiments; CHECKPOINT_EVERY=200 turns SQLite's automatic
 *   WAL checkpoint off and runs one every 200 writes, timed as its own stage; EVERY=250 prints every 250 writes
 *
 *   SYNC=NORMAL DATASYNC=1 npx tsx bench/write-stages.ts   what the server does since group commit
 *   (src/storage/durable-commit.ts): COMMIT without an fsync, then an `fdatasync` of the WAL timed as its
 *   own stage `datasync` (the server runs it on the thread pool, shared by the writes that commit meanwhile)
 */
import { fdatasyncSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { OPERATOR } from '../src/domain/accounts/account-actor.js';
import { ulid } from '../src/domain/common/ids.js';
import { ftsOwnerToken } from '../src/storage/dialects/sqlite/fts.js';
import { userTerms } from '../src/storage/dialects/sqlite/memory-search.js';

const N = Number(process.env.N ?? 50000);
const path = process.env.DB ?? join(mkdtempSync(join(tmpdir(), 'cairn-write-stages-')), 'stages.db');
const container = await createContainer(
  loadConfig({ ...process.env, DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'silent' }),
);
const user = await container.services.users.create(OPERATOR, { email: 'x@example.com' });
await container.close();
const db = new Database(path);
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${process.env.SYNC ?? 'FULL'}`);
if (process.env.AUTOMERGE)
  db.prepare("insert into memories_fts (memories_fts, rank) values ('automerge', ?)").run(
    Number(process.env.AUTOMERGE),
  );
// The WAL file exists once the database is in WAL mode and has been read.
const walFd = process.env.DATASYNC === '1' ? openSync(`${path}-wal`, 'r+') : undefined;
const checkpointEvery = Number(process.env.CHECKPOINT_EVERY ?? 0);
if (checkpointEvery > 0) db.pragma('wal_autocheckpoint = 0');
const s = {
  begin: db.prepare('begin'),
  commit: db.prepare('commit'),
  row: db.prepare(
    `insert into memories (id, user_id, text, project_name, category, priority, priority_rank, tags_text, metadata, created_at, updated_at, last_accessed_at, recency_ms, search_terms, token_count) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) returning seq`,
  ),
  tagsDel: db.prepare('delete from memory_tags where memory_id = ?'),
  tagsIns: db.prepare('insert into memory_tags (memory_id, user_id, tag) values (?,?,?)'),
  ftsDel: db.prepare('delete from memories_fts where rowid = ?'),
  ftsIns: db.prepare(
    'insert into memories_fts (rowid, owner, scope, prio, text, category, tags) values (?,?,?,?,?,?,?)',
  ),
  stats: db.prepare(
    'insert into memory_search_stats (user_id, documents, tokens) values (?,?,?) on conflict (user_id) do update set documents = documents + excluded.documents, tokens = tokens + excluded.tokens',
  ),
};
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const words = Array.from({ length: 6000 }, (_, i) => `w${(i * 7919).toString(36)}`);
const stages = ['begin', 'row', 'tags', 'ftsDel', 'ftsIns', 'stats', 'commit'] as const;
let times: Record<string, number[]> = {};
const record = (name: string, ms: number) => {
  const list = times[name] ?? [];
  list.push(ms);
  times[name] = list;
};
const skipDel = process.env.SKIPDEL === '1';
for (let i = 1; i <= N; i++) {
  const text = Array.from(
    { length: 12 + Math.floor(random() * 40) },
    () => words[Math.floor(words.length * random() ** 3)],
  ).join(' ');
  const now = new Date().toISOString();
  const id = `mem_${ulid(Date.now())}`;
  const t: number[] = [performance.now()];
  s.begin.run();
  t.push(performance.now());
  const { seq } = s.row.get(
    id,
    user.id,
    text,
    'org1/api',
    null,
    'high',
    0,
    'bench',
    '{}',
    now,
    now,
    null,
    Date.now(),
    ` ${text} `,
    text.split(' ').length,
  ) as { seq: number };
  t.push(performance.now());
  s.tagsDel.run(id);
  s.tagsIns.run(id, user.id, 'bench');
  t.push(performance.now());
  if (!skipDel) s.ftsDel.run(seq);
  t.push(performance.now());
  s.ftsIns.run(seq, ftsOwnerToken(user.id), 'sx ax pad pad pad pad pad pad', 'high', userTerms(user.id, text), '', '');
  t.push(performance.now());
  s.stats.run(user.id, 1, 30);
  t.push(performance.now());
  s.commit.run();
  t.push(performance.now());
  stages.forEach((name, k) => {
    record(name, (t[k + 1] as number) - (t[k] as number));
  });
  record('total', (t.at(-1) as number) - (t[0] as number));
  if (walFd !== undefined) {
    const started = performance.now();
    fdatasyncSync(walFd);
    record('datasync', performance.now() - started);
  }
  if (checkpointEvery > 0 && i % checkpointEvery === 0) {
    const started = performance.now();
    db.pragma('wal_checkpoint(PASSIVE)');
    record('checkpoint', performance.now() - started);
  }
  if (i % Number(process.env.EVERY ?? 10000) === 0) {
    const line = Object.entries(times).map(([name, v]) => {
      v.sort((a, b) => a - b);
      const sum = v.reduce((a, b) => a + b, 0);
      return `${name} ${(v[v.length >> 1] as number).toFixed(3)}/${(v[Math.floor(v.length * 0.99)] as number).toFixed(2)}/${(v.at(-1) as number).toFixed(0)} Σ${(sum / 1000).toFixed(1)}s`;
    });
    console.log(`${i}\t${line.join('  ')}`);
    times = {};
  }
}
