import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { DurableSqliteDialect, type WalSyncer, walSyncer } from './durable-commit.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-durable-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A syncer whose syncs finish when the test says so. */
function manualSyncer() {
  const pending: Array<() => void> = [];
  const syncer: WalSyncer = {
    sync: () => new Promise<void>((resolve) => pending.push(resolve)),
    close: async () => undefined,
  };
  const finishAll = () => {
    for (const resolve of pending.splice(0)) resolve();
  };
  return { syncer, pending, finishAll };
}

function testDb(syncer: WalSyncer) {
  const connection = new Database(join(tempDir(), 'test.db'));
  connection.pragma('journal_mode = WAL');
  connection.exec('create table t (n integer)');
  const db = new Kysely<{ t: { n: number } }>({
    dialect: new DurableSqliteDialect({ database: connection, walPath: `${connection.name}-wal`, syncer }),
  });
  return { db, connection };
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('DurableSqliteDialect', () => {
  it('answers a write only after a sync, and frees the connection for others while it waits', async () => {
    const manual = manualSyncer();
    const { db: db2 } = testDb(manual.syncer);
    const write = db2.insertInto('t').values({ n: 1 }).execute();
    expect(await settled(write)).toBe(false);
    expect(manual.pending).toHaveLength(1);
    // The commit is done: another query runs (and sees the row) while the first write waits for its sync.
    expect(await db2.selectFrom('t').select('n').execute()).toEqual([{ n: 1 }]);
    const second = db2.transaction().execute((trx) => trx.insertInto('t').values({ n: 2 }).execute());
    expect(await settled(second)).toBe(false);
    expect(manual.pending).toHaveLength(2);
    manual.finishAll();
    await Promise.all([write, second]);
    await db2.destroy();
  });

  it('does not sync for reads or rolled-back transactions', async () => {
    const manual = manualSyncer();
    const { db } = testDb(manual.syncer);
    await db.selectFrom('t').selectAll().execute();
    await sql`select 1`.execute(db);
    await db.transaction().execute((trx) => trx.selectFrom('t').selectAll().execute());
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 1 }).execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(manual.pending).toHaveLength(0);
    await db.destroy();
  });

  it('runs SQLite at synchronous=NORMAL only where it syncs the WAL itself', async () => {
    const file = await openDatabase(`sqlite:${join(tempDir(), 'cairn.db')}`);
    const memory = await openDatabase('sqlite::memory:');
    try {
      const level = async (database: typeof file) =>
        (await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db)).rows[0]?.synchronous;
      expect(await level(file)).toBe(1); // NORMAL: the driver's fdatasync makes each commit durable
      expect(await level(memory)).toBe(2); // FULL
      await sql`create table t (n integer)`.execute(file.db);
      await sql`insert into t values (1)`.execute(file.db);
    } finally {
      await file.close();
      await memory.close();
    }
  });
});

describe('walSyncer', () => {
  it('shares one sync among the calls made while another runs, and never starts one early', async () => {
    const dir = tempDir();
    const connection = new Database(join(dir, 'w.db'));
    connection.pragma('journal_mode = WAL');
    connection.exec('create table t (n integer); insert into t values (1)');
    const syncer = walSyncer(`${connection.name}-wal`);
    const first = syncer.sync();
    const second = syncer.sync();
    const third = syncer.sync();
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    await Promise.all([first, second, third]);
    // Idle again: the next call starts its own sync.
    const fourth = syncer.sync();
    expect(fourth).not.toBe(second);
    await fourth;
    await syncer.close();
    connection.close();
  });

  it('fails every later sync once one has failed', async () => {
    const path = join(tempDir(), 'late-wal');
    const syncer = walSyncer(path);
    await expect(syncer.sync()).rejects.toThrow();
    writeFileSync(path, 'now it exists');
    await expect(syncer.sync()).rejects.toThrow();
    await syncer.close();
  });
});
