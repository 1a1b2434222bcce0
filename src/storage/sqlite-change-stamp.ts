import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import type { Database as BetterSqlite3Database } from 'better-sqlite3';
import type { ChangeStamp } from '../domain/common/fresh-cache.js';
import type { OpenGroup } from './durable-commit.js';

/**
 * SQLite's change stamp (fresh-cache.ts): it moves when any connection commits — another server instance,
 * an operator's `cairn` command — and when this connection changes a row, committed or not
 * (`total_changes()`; a rollback only makes a cache drop entries it could have kept). When it cannot be
 * read (the database closed) the stamp is `undefined` and nothing is cached.
 *
 * Other connections' commits are read off the **WAL-index header**, the first 48 bytes of the `-shm` file
 * that every connection to the database maps (https://www.sqlite.org/walformat.html, "The WAL-Index
 * Header"). Every commit rewrites it: its change counter (`iChange`, one more per transaction), the last
 * valid frame (`mxFrame`) and, when the WAL restarts, the salts. One `pread` of it answers what `pragma
 * data_version` answers, without the read transaction that pragma opens (a shared lock taken and dropped,
 * two `fcntl` calls): about half the cost, on every authenticated request (docs/performance.md).
 *
 * Why a read of the header is enough: a commit that finished before a request arrived rewrote the header
 * before the request reads it (the writer's mapping and this `pread` share the page cache), so an entry
 * cached before that commit is never served after it. A read racing a commit in progress may see a torn
 * header; SQLite writes the second copy first and its readers retry until both copies agree, so data read
 * after such a stamp is never older than the part of the header the stamp saw. At worst an entry is
 * dropped early. This relies on every data read going through Kysely, one query at a time on the one
 * connection, so that no read runs inside a snapshot some other query holds open (all of Cairn's
 * transactions begin IMMEDIATE, holding the write lock: no other connection commits meanwhile).
 *
 * While a group transaction is open (durable-commit.ts) its members' changes are not counted yet: no read
 * outside the group can see them (a statement outside it commits it first), so nothing cached can hold
 * them, and the requests of one turn keep their caches — a create's key lookup, say, which would otherwise
 * commit the group it is about to join. They count once the group has ended, committed or not.
 *
 * The header is only trusted in the format this was written against (version 3007000, initialised, in
 * this machine's byte order, as SQLite writes it); otherwise — no WAL, `:memory:`, a future format — the
 * stamp uses `pragma data_version`.
 */
export interface SqliteChangeStamp {
  stamp: ChangeStamp;
  /** What it reads other connections' commits from: decided at the first stamp. */
  source(): 'wal-index' | 'data_version' | 'undecided';
  /**
   * Closes the `-shm` file descriptor: only once the connection is closed. POSIX locks belong to the
   * process and the file, so closing any descriptor of the `-shm` file drops the locks SQLite holds on it
   * through its own (the walSyncer in durable-commit.ts keeps its WAL descriptor open for the same reason).
   */
  close(): void;
}

const HEADER_BYTES = 48;
const WAL_INDEX_VERSION = 3_007_000;
/** Byte offsets in the header (walformat.html): iVersion, iChange, isInit, mxFrame, aSalt[0], aSalt[1]. */
const VERSION = 0;
const CHANGE = 8;
const IS_INIT = 12;
const MAX_FRAME = 16;
const SALT_1 = 32;
const SALT_2 = 36;
const WATCHED = [CHANGE, MAX_FRAME, SALT_1, SALT_2];

export function sqliteChangeStamp(
  connection: BetterSqlite3Database,
  shmPath: string | undefined,
  openGroup: OpenGroup = { changesBefore: undefined },
): SqliteChangeStamp {
  const ownChanges = connection.prepare('select total_changes()').pluck();
  const dataVersion = connection.prepare('pragma data_version').pluck();
  let header: WalIndexHeader | undefined | null = shmPath ? undefined : null;
  /** The `-shm` descriptor, kept open (even when its header is not used) until `close`. */
  let fd: number | undefined;

  let sequence = 0;
  let lastOwn = -1;
  let lastDataVersion = -1;
  const stamp: ChangeStamp = () => {
    try {
      // Decided at the first reading (after migrations, when the file is in use): one source for life, so
      // that readings are always compared with readings of the same kind.
      if (header === undefined) {
        fd = openOrUndefined(shmPath as string);
        header = fd === undefined ? null : (walIndexHeader(fd) ?? null);
      }
      // Every reading before any comparison (a reading may throw): a change seen is never lost.
      const own = openGroup.changesBefore ?? (ownChanges.get() as number);
      let othersMoved: boolean;
      if (header) {
        header.read();
        othersMoved = header.moved();
      } else {
        const version = dataVersion.get() as number;
        othersMoved = version !== lastDataVersion;
        lastDataVersion = version;
      }
      if (othersMoved || own !== lastOwn) sequence += 1;
      lastOwn = own;
      return sequence;
    } catch {
      return undefined;
    }
  };
  return {
    stamp,
    source: () => (header === undefined ? 'undecided' : header ? 'wal-index' : 'data_version'),
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      header = null;
    },
  };
}

interface WalIndexHeader {
  /** Reads the header; throws when it cannot. */
  read(): void;
  /** Whether the header last read differs from the one read before it (the first counts as a change). */
  moved(): boolean;
}

function openOrUndefined(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch {
    return undefined;
  }
}

function walIndexHeader(fd: number): WalIndexHeader | undefined {
  const buffer = Buffer.alloc(HEADER_BYTES);
  const u32 = endianness() === 'LE' ? buffer.readUInt32LE.bind(buffer) : buffer.readUInt32BE.bind(buffer);
  const readAll = () => readSync(fd, buffer, 0, HEADER_BYTES, 0) === HEADER_BYTES;
  if (!readAll() || u32(VERSION) !== WAL_INDEX_VERSION || buffer[IS_INIT] !== 1) return undefined;
  const last = WATCHED.map(() => -1);
  return {
    read() {
      if (!readAll()) throw new Error('short read of the WAL-index header');
    },
    moved() {
      let moved = false;
      for (let i = 0; i < WATCHED.length; i++) {
        const value = u32(WATCHED[i] as number);
        if (value !== last[i]) {
          last[i] = value;
          moved = true;
        }
      }
      return moved;
    },
  };
}
