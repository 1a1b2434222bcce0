// The write ceiling: a bare node:http server that stores each POSTed memory with a raw INSERT and an FTS5
// insert in one transaction, at the durability Cairn uses (WAL, synchronous=FULL), and answers 201 with
// the row as JSON. No auth, no validation, no index upkeep beyond the full-text row.
// Usage: node write-ceiling.mjs <port> <sqlite file>
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Database from 'better-sqlite3';

const db = new Database(process.argv[3]);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`create table if not exists memories (seq integer primary key, id text not null unique,
  user_id text not null, text text not null, metadata text not null, created_at text not null);
  create index if not exists memories_user on memories (user_id, seq);
  create virtual table if not exists memories_fts using fts5(owner, text, content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 0');`);
const insertRow = db.prepare(
  'insert into memories (id, user_id, text, metadata, created_at) values (?, ?, ?, ?, ?) returning seq',
);
const insertFts = db.prepare('insert into memories_fts (rowid, owner, text) values (?, ?, ?)');
const store = db.transaction((memory) => {
  const { seq } = insertRow.get(memory.id, 'u1', memory.text, memory.metadata, memory.created_at);
  insertFts.run(seq, 'u1', memory.text.toLowerCase());
});

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const memory = {
      id: `mem_${randomUUID()}`,
      text: String(input.text ?? ''),
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: new Date().toISOString(),
    };
    store(memory);
    response.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify({ memory_id: memory.id, text: memory.text, created_at: memory.created_at }));
  });
}).listen(Number(process.argv[2]), '127.0.0.1');
