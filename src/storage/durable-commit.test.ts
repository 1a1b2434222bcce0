import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { DurableSqliteDialect, type WalSyncer, walSyncer } from './durable-commit.js';
import { sqliteChangeStamp } from './sqlite-change-stamp.js';

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

describe('group transactions', () => {
  /** The rows another connection sees: what is committed (as another process would). */
  const committed = (path: string) => {
    const reader = new Database(path, { readonly: true });
    try {
      return (reader.prepare('select n from t order by n').all() as Array<{ n: number }>).map((row) => row.n);
    } finally {
      reader.close();
    }
  };

  it('commits the transactions of one turn together, once, and answers each only when that commit is synced', async () => {
    const manual = manualSyncer();
    const { db, connection } = testDb(manual.syncer);
    const members = [1, 2, 3].map((n) =>
      db.transaction().execute((trx) => trx.insertInto('t').values({ n }).execute()),
    );
    expect(await settled(Promise.race(members))).toBe(false);
    // One COMMIT for the three (another connection sees all of them), one sync, nobody answered before it.
    expect(committed(connection.name)).toEqual([1, 2, 3]);
    expect(connection.inTransaction).toBe(false);
    expect(manual.pending).toHaveLength(1);
    manual.finishAll();
    await Promise.all(members);
    await db.destroy();
  });

  it('rolls a failing member back alone', async () => {
    const manual = manualSyncer();
    const { db, connection } = testDb(manual.syncer);
    const good = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
    const bad = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ n: 2 }).execute();
      throw new Error('undo');
    });
    const after = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 3 }).execute());
    await expect(bad).rejects.toThrow('undo');
    await settled(good);
    manual.finishAll();
    await Promise.all([good, after]);
    expect(committed(connection.name)).toEqual([1, 3]);
    await db.destroy();
  });

  it('commits the open group before any statement outside it, so nothing outside sees uncommitted rows', async () => {
    const manual = manualSyncer();
    const { db, connection } = testDb(manual.syncer);
    const member = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
    // Same turn: the read queues behind the member, then finds the group open and commits it first.
    const read = db.selectFrom('t').select('n').execute();
    expect(await read).toEqual([{ n: 1 }]);
    expect(committed(connection.name)).toEqual([1]);
    // A stream too.
    const second = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 2 }).execute());
    const streamed: number[] = [];
    for await (const row of db.selectFrom('t').select('n').stream()) streamed.push(row.n);
    expect(streamed).toEqual([1, 2]);
    expect(committed(connection.name)).toEqual([1, 2]);
    manual.finishAll();
    await Promise.all([member, second]);
    await db.destroy();
  });

  it('lets the open group finish its turn before a read that arrives in the middle of it, then reads it all', async () => {
    const manual = manualSyncer();
    const { db } = testDb(manual.syncer);
    const first = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
    const read = db.selectFrom('t').select('n').execute();
    const second = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 2 }).execute());
    // One group for both members (one COMMIT, one sync), though a read came between them.
    expect(await read).toEqual([{ n: 1 }, { n: 2 }]);
    expect(manual.pending).toHaveLength(1);
    manual.finishAll();
    await Promise.all([first, second]);
    await db.destroy();
  });

  it('leaves the change stamp still while its group is open, and moves it once the group has committed', async () => {
    const manual = manualSyncer();
    const connection = new Database(join(tempDir(), 'stamp.db'));
    connection.pragma('journal_mode = WAL');
    connection.exec('create table t (n integer)');
    const dialect = new DurableSqliteDialect({
      database: connection,
      walPath: `${connection.name}-wal`,
      syncer: manual.syncer,
    });
    const db = new Kysely<{ t: { n: number } }>({ dialect });
    const { stamp } = sqliteChangeStamp(connection, `${connection.name}-shm`, dialect.openGroup);
    connection.exec('insert into t values (0)'); // the WAL index in use
    const before = stamp() as number;
    const seen: Array<number | undefined> = [];
    const members = [1, 2].map((n) =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n }).execute();
        seen.push(stamp()); // a request arriving now: the group's rows are nowhere to be read yet
      }),
    );
    await settled(Promise.race(members));
    expect(seen).toEqual([before, before]);
    expect(stamp()).toBeGreaterThan(before); // committed (the sync still pending): visible to readers
    manual.finishAll();
    await Promise.all(members);
    await db.destroy();
  });

  it('fails every member when the group cannot commit, keeps none of their rows, and goes on', async () => {
    const manual = manualSyncer();
    const connection = new Database(join(tempDir(), 'fk.db'));
    connection.pragma('journal_mode = WAL');
    connection.pragma('foreign_keys = ON');
    connection.exec(`create table p (id integer primary key);
      create table t (n integer, p integer references p (id) deferrable initially deferred)`);
    const db = new Kysely<{ t: { n: number; p: number | null } }>({
      dialect: new DurableSqliteDialect({
        database: connection,
        walPath: `${connection.name}-wal`,
        syncer: manual.syncer,
      }),
    });
    const fine = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1, p: null }).execute());
    // A deferred constraint is checked at the COMMIT: the group's, which then fails for both.
    const dangling = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 2, p: 99 }).execute());
    await expect(fine).rejects.toThrow(/FOREIGN KEY/);
    await expect(dangling).rejects.toThrow(/FOREIGN KEY/);
    expect(connection.inTransaction).toBe(false);
    expect(committed(connection.name)).toEqual([]);
    expect(manual.pending).toHaveLength(0);
    const next = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 3, p: null }).execute());
    await settled(next);
    manual.finishAll();
    await next;
    expect(committed(connection.name)).toEqual([3]);
    await db.destroy();
  });

  // Any mix of transactions that commit or fail, autocommit writes and reads, started together or across
  // turns: every write answered as stored is committed, no failed transaction left a row, nothing was
  // answered before a sync that started after its commit, and no read saw a row of a transaction that failed.
  it('keeps every answered write and no failed one, whatever the interleaving', async () => {
    const op = fc.record({
      kind: fc.constantFrom('transaction', 'failing transaction', 'autocommit', 'read', 'next turn'),
      rows: fc.integer({ min: 1, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        let synced = 0;
        const syncer: WalSyncer = {
          sync: () =>
            new Promise<void>((resolve) =>
              setImmediate(() => {
                synced += 1;
                resolve();
              }),
            ),
          close: async () => undefined,
        };
        const { db, connection } = testDb(syncer);
        let next = 1;
        const answered: number[] = [];
        const failed: number[] = [];
        const reads: Array<Promise<number[]>> = [];
        const pending: Array<Promise<unknown>> = [];
        for (const { kind, rows } of ops) {
          const values = Array.from({ length: rows }, () => next++);
          if (kind === 'next turn') await new Promise((resolve) => setImmediate(resolve));
          else if (kind === 'read')
            reads.push(
              db
                .selectFrom('t')
                .select('n')
                .execute()
                .then((r) => r.map((x) => x.n)),
            );
          else if (kind === 'autocommit')
            pending.push(
              db
                .insertInto('t')
                .values(values.map((n) => ({ n })))
                .execute()
                .then(() => answered.push(...values)),
            );
          else {
            const fails = kind === 'failing transaction';
            pending.push(
              db
                .transaction()
                .execute(async (trx) => {
                  for (const n of values) await trx.insertInto('t').values({ n }).execute();
                  if (fails) throw new Error('undo');
                })
                .then(
                  () => answered.push(...values),
                  () => failed.push(...values),
                ),
            );
          }
        }
        await Promise.all(pending);
        const seen = (await Promise.all(reads)).flat();
        await db.destroy();
        const stored = committed(connection.name);
        expect(stored).toEqual([...answered].sort((a, b) => a - b));
        for (const n of failed) expect(seen).not.toContain(n);
        if (answered.length > 0) expect(synced).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
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
