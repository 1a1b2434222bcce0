import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3, { type Database as Connection } from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteChangeStamp } from '../../src/storage/sqlite-change-stamp.js';

/**
 * The SQLite change stamp that keeps the in-process caches honest (fresh-cache.ts): another connection's
 * commit — another server instance, a `cairn` command — must move it before the next request reads,
 * this connection's own changes too, and nothing else should (or nothing would ever be served from memory).
 */
const dirs: string[] = [];
const connections: Connection[] = [];

afterEach(() => {
  for (const connection of connections.splice(0)) if (connection.open) connection.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(path: string): Connection {
  const connection = new BetterSqlite3(path);
  connection.pragma('journal_mode = WAL');
  connections.push(connection);
  return connection;
}

function walDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-stamp-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const own = open(path);
  own.exec('create table t (x integer)');
  return { path, own, shm: `${path}-shm` };
}

describe('sqliteChangeStamp', () => {
  it('reads the WAL-index header on a WAL file, and data_version without one', () => {
    const { own, shm } = walDatabase();
    const changes = sqliteChangeStamp(own, shm);
    changes.stamp();
    expect(changes.source()).toBe('wal-index');

    const memory = new BetterSqlite3(':memory:');
    connections.push(memory);
    const inMemory = sqliteChangeStamp(memory, undefined);
    expect(inMemory.stamp()).toBeTypeOf('number');
    expect(inMemory.source()).toBe('data_version');

    const missing = sqliteChangeStamp(own, `${shm}-not-there`);
    missing.stamp();
    expect(missing.source()).toBe('data_version');
  });

  it('holds still while nothing changes, so caches can answer', () => {
    const { own, shm } = walDatabase();
    const { stamp } = sqliteChangeStamp(own, shm);
    const first = stamp();
    own.prepare('select count(*) from t').get();
    expect(stamp()).toBe(first);
    expect(stamp()).toBe(first);
  });

  it('moves on an uncommitted change of its own connection, and on every commit of another', () => {
    const { path, own, shm } = walDatabase();
    const other = open(path);
    const { stamp } = sqliteChangeStamp(own, shm);
    let last = stamp() as number;
    own.exec('begin');
    own.prepare('insert into t values (1)').run();
    expect(stamp()).toBeGreaterThan(last);
    last = stamp() as number;
    own.exec('commit');
    other.prepare('insert into t values (2)').run();
    expect(stamp()).toBeGreaterThan(last);
  });

  // Any interleaving of the other connection's commits (plain, rolled back, after checkpoints that restart
  // or truncate the WAL, from a connection opened anew), this connection's own writes and reads: every
  // commit by another moves the stamp before the next reading, whatever the WAL's state.
  it('never misses another connection’s commit, through checkpoints, restarts and reconnections', () => {
    const step = fc.constantFrom(
      'other commits',
      'other rolls back',
      'other reconnects',
      'own writes',
      'own reads',
      'checkpoint passive',
      'checkpoint restart',
      'checkpoint truncate',
      'stamp',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(step, fc.boolean(), fc.nat(1000)), { minLength: 1, maxLength: 30 }), (steps) => {
        const { path, own, shm } = walDatabase();
        let other = open(path);
        const changes = sqliteChangeStamp(own, shm);
        let last = changes.stamp() as number;
        let committedSince = false;
        for (const [action, byOwn, value] of steps) {
          switch (action) {
            case 'other commits':
              other.prepare('insert into t values (?)').run(value);
              committedSince = true;
              break;
            case 'other rolls back':
              other.exec('begin immediate');
              other.prepare('insert into t values (0)').run();
              other.exec('rollback');
              break;
            case 'other reconnects':
              other.close();
              other = open(path);
              break;
            case 'own writes':
              own.prepare('insert into t values (-1)').run();
              committedSince = true;
              break;
            case 'own reads':
              own.prepare('select count(*) from t').get();
              break;
            case 'checkpoint passive':
            case 'checkpoint restart':
            case 'checkpoint truncate':
              (byOwn ? own : other).pragma(`wal_checkpoint(${action.split(' ')[1]})`);
              break;
            case 'stamp': {
              const now = changes.stamp() as number;
              if (committedSince) expect(now).toBeGreaterThan(last);
              else expect(now).toBeGreaterThanOrEqual(last);
              last = now;
              committedSince = false;
            }
          }
        }
        const final = changes.stamp() as number;
        if (committedSince) expect(final).toBeGreaterThan(last);
        expect(changes.source()).toBe('wal-index');
        for (const connection of connections.splice(0)) connection.close();
        changes.close(); // after the connections: closing a -shm descriptor drops the process's locks on it
      }),
      { numRuns: 150 },
    );
  });

  it('tells no stamp once its database is closed (nothing may be cached then)', () => {
    const { own, shm } = walDatabase();
    const changes = sqliteChangeStamp(own, shm);
    expect(changes.stamp()).toBeTypeOf('number');
    own.close();
    expect(changes.stamp()).toBeUndefined();
    changes.close();
  });
});
