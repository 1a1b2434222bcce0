import { type FileHandle, open } from 'node:fs/promises';
import type { Database as BetterSqlite3Database } from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  SqliteDriver,
} from 'kysely';

/**
 * Durable commits without blocking the event loop (issue 15, docs/performance.md "Group commit").
 *
 * With `synchronous=FULL` every COMMIT fsyncs the WAL inside better-sqlite3's synchronous call, so the
 * whole process stops for each fsync and concurrent writers queue behind one fsync each. Instead the
 * connection runs at `synchronous=NORMAL` (a COMMIT only writes its WAL frames; checkpoints still sync)
 * and this driver makes each write durable itself: after a write releases the connection, it waits for
 * an `fdatasync` of the WAL file that *started after its commit*, run on libuv's thread pool. One sync
 * runs at a time; every write that commits meanwhile shares the next one (group commit), and the
 * connection is free for the next writer during the sync. The caller (the service, then the HTTP
 * answer) resumes only when its commit is on disk: a 201 still means the write survives power loss.
 *
 * What changes: another request may read a committed row a few milliseconds before it is durable (a
 * power cut in that window loses a write whose author was never told it was stored).
 */
export class DurableSqliteDialect extends SqliteDialect {
  readonly #database: BetterSqlite3Database;
  readonly #sync: WalSyncer;
  /**
   * While a group transaction is open: this connection's `total_changes()` from just before it began. The
   * change stamp counts own changes up to there, and the group's when it has committed (see `Group`).
   */
  readonly openGroup: OpenGroup = { changesBefore: undefined };

  /** `syncer` replaces the WAL's fdatasync (tests). */
  constructor(config: { database: BetterSqlite3Database; walPath: string; syncer?: WalSyncer }) {
    super({ database: config.database });
    this.#database = config.database;
    this.#sync = config.syncer ?? walSyncer(config.walPath);
  }

  override createDriver(): Driver {
    return new DurableSqliteDriver(this.#database, this.#sync, this.openGroup);
  }
}

/** See `DurableSqliteDialect.openGroup`. */
export interface OpenGroup {
  changesBefore: number | undefined;
}

/**
 * Group transactions (issue 15, "writes that do not slow down"). SQLite has one writer, and a COMMIT costs
 * more than the small transaction before it: it appends every page the transaction touched to the WAL
 * (a create touches a dozen: the table, its indexes, the FTS5 segments, the term statistics, the audit
 * log), and concurrent creates touch mostly the same pages. So the transactions that run in one turn of
 * the event loop share one: the first opens it (`BEGIN IMMEDIATE`), each runs inside a savepoint of its
 * own — released when it commits, rolled back alone when it fails — and the group commits once, at the end
 * of the turn (`setImmediate`), then waits for one `fdatasync` like any write. Each member's caller resumes
 * only when the group is durable, as before; a member's failure touches no other member.
 *
 * Nothing outside a member ever sees a member's uncommitted rows: a statement outside a transaction (a
 * read, an autocommit write, a pragma) runs after the open group has committed. When it is the first
 * statement of its holder it lets the group finish its turn — it hands the connection back and waits for
 * the group's COMMIT — so that the reads of the turn's requests (a key lookup, a create's near-duplicate
 * search) do not cut every group down to one member; once it has waited, or later in its holder, it
 * commits the open group at once. If the group's COMMIT fails, or SQLite
 * rolls the whole transaction back under a member (an I/O error, a full disk), every member of that group
 * fails: none of them is answered as stored.
 */
interface Group {
  /** A member committed a write: the COMMIT needs a sync, and every later member waits for it. */
  wrote: boolean;
  /** Settles when the group's COMMIT is on disk (or failed). */
  durable: Promise<void>;
  /** Resolves when the group has ended, committed or not (before its sync). */
  ended: Promise<void>;
  end(): void;
  succeed(): void;
  fail(error: unknown): void;
}

function newGroup(): Group {
  let succeed!: () => void;
  let fail!: (error: unknown) => void;
  const durable = new Promise<void>((resolve, reject) => {
    succeed = resolve;
    fail = reject;
  });
  durable.catch(() => undefined); // a group whose members all rolled back has no one awaiting it
  let end!: () => void;
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  return { wrote: false, durable, succeed, fail, ended, end };
}

const MEMBER = CompiledQuery.raw('savepoint cairn_member');
const RELEASE_MEMBER = CompiledQuery.raw('release cairn_member');
const ROLLBACK_MEMBER = CompiledQuery.raw('rollback to cairn_member');

class DurableSqliteDriver extends SqliteDriver {
  readonly #database: BetterSqlite3Database;
  readonly #totalChanges: { get(): unknown };
  readonly #sync: WalSyncer;
  readonly #openGroup: OpenGroup;
  /** Whether the connection wrote outside a group since it was acquired (rolled back writes need no sync). */
  #wrote = false;
  /** Whether the member inside the group wrote. */
  #memberWrote = false;
  /** The open group transaction: begun, not yet committed. */
  #group: Group | undefined;
  /** The connection's holder is inside a member transaction (between its savepoint and its end). */
  #inMember = false;
  /** The group a member of the current holder committed into: its release waits for that group. */
  #joined: Group | undefined;

  constructor(database: BetterSqlite3Database, sync: WalSyncer, openGroup: OpenGroup) {
    super({ database });
    this.#database = database;
    this.#totalChanges = database.prepare('select total_changes()').pluck();
    this.#sync = sync;
    this.#openGroup = openGroup;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    const driver = this;
    let first = true;
    return {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        if (first && this.#group && !this.#inMember) {
          // Nothing has run for this holder yet: giving the connection back for a moment is invisible to it.
          const group = this.#group;
          await super.releaseConnection();
          await group.ended;
          await super.acquireConnection();
        }
        first = false;
        if (this.#group && !this.#inMember) await this.#commitGroup(connection);
        if (writes(query)) {
          if (this.#inMember) this.#memberWrote = true;
          else this.#wrote = true;
        }
        return connection.executeQuery<R>(query);
      },
      streamQuery: async function* <R>(this: void, query: CompiledQuery, chunkSize?: number) {
        if (driver.#group && !driver.#inMember) await driver.#commitGroup(connection);
        yield* connection.streamQuery<R>(query, chunkSize);
      },
    };
  }

  /**
   * Joins the open group, or opens one with `BEGIN IMMEDIATE`: it takes the write lock when it starts,
   * waiting up to `busy_timeout` for another process's writer (a `cairn` command, a second instance). A
   * deferred one that read first and then wrote would fail at once with SQLITE_BUSY when another process
   * had committed meanwhile.
   */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.#group) {
      const changesBefore = this.#totalChanges.get() as number;
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      this.#openGroup.changesBefore = changesBefore;
      const group = newGroup();
      this.#group = group;
      setImmediate(() => void this.#flush(group));
    }
    this.#inMember = true;
    this.#memberWrote = false;
    await connection.executeQuery(MEMBER);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(RELEASE_MEMBER);
    } catch (error) {
      this.#inMember = false;
      this.#checkGroup(error);
      throw error;
    }
    this.#inMember = false;
    const group = this.#group as Group;
    if (this.#memberWrote) group.wrote = true;
    // A member that only read waits too once the group holds writes: it may have read them.
    if (group.wrote) this.#joined = group;
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#memberWrote = false;
    try {
      await connection.executeQuery(ROLLBACK_MEMBER);
      await connection.executeQuery(RELEASE_MEMBER);
    } catch (error) {
      this.#checkGroup(error);
      throw error;
    } finally {
      this.#inMember = false;
    }
  }

  /** Kysely releases after COMMIT (or after a statement outside a transaction): the write is committed. */
  override async releaseConnection(): Promise<void> {
    const wrote = this.#wrote;
    const joined = this.#joined;
    this.#wrote = false;
    this.#joined = undefined;
    this.#inMember = false;
    await super.releaseConnection();
    if (joined) await joined.durable;
    else if (wrote) await this.#sync.sync();
  }

  override async destroy(): Promise<void> {
    if (this.#group) await this.#flush(this.#group);
    await super.destroy();
    await this.#sync.close();
  }

  /** Commits `group` at the end of the turn that opened it, unless a statement outside it already did. */
  async #flush(group: Group): Promise<void> {
    if (this.#group !== group) return;
    const connection = await super.acquireConnection();
    try {
      if (this.#group === group) await this.#commitGroup(connection);
    } finally {
      await super.releaseConnection();
    }
  }

  /** Commits the open group (the connection held, no member inside it) and starts its sync. */
  async #commitGroup(connection: DatabaseConnection): Promise<void> {
    const group = this.#group as Group;
    this.#group = undefined;
    try {
      await connection.executeQuery(CompiledQuery.raw('commit'));
    } catch (error) {
      // Whatever is left of it is undone; no member is answered as stored.
      if (this.#database.inTransaction)
        await connection.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      group.fail(error);
      return;
    } finally {
      this.#openGroup.changesBefore = undefined;
      group.end();
    }
    if (group.wrote) this.#sync.sync().then(group.succeed, group.fail);
    else group.succeed();
  }

  /** After a member's failure: if SQLite rolled the whole group back, the group has failed. */
  #checkGroup(error: unknown): void {
    const group = this.#group;
    if (!group || this.#database.inTransaction) return;
    this.#group = undefined;
    this.#openGroup.changesBefore = undefined;
    group.end();
    group.fail(error);
  }
}

const READ_ONLY_SQL = /^\s*(?:select|begin|commit|rollback|savepoint|release)\b/i;

/** Conservative: anything but a SELECT or transaction control counts as a write. */
const writes = (query: CompiledQuery): boolean => !SelectQueryNode.is(query.query) && !READ_ONLY_SQL.test(query.sql);

export interface WalSyncer {
  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `fdatasync` of the WAL file, one at a time: a call made while a sync runs waits for the next one, which
 * starts when the current one ends and serves every call made meanwhile. fsync acts on the file, not the
 * descriptor, so a descriptor of our own flushes what SQLite wrote through its own.
 */
export function walSyncer(walPath: string): WalSyncer {
  // Opened on first use (the WAL exists once a write has committed) and kept open: closing a descriptor
  // would drop the process's POSIX locks on that file.
  let handle: Promise<FileHandle> | undefined;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  // After a failed fsync the kernel may have dropped the dirty pages and report the next fsync as a
  // success, so a failure is final: every later write fails too (500) until the process restarts.
  let failure: unknown;

  const syncOnce = async () => {
    if (failure) throw failure;
    handle ??= open(walPath, 'r+').catch((error) => {
      handle = undefined;
      throw error;
    });
    try {
      await (await handle).datasync();
    } catch (error) {
      failure = error;
      throw error;
    }
  };
  const start = (): Promise<void> => {
    running = syncOnce().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    sync() {
      if (!running) return start();
      next ??= running
        .catch(() => undefined)
        .then(() => {
          next = undefined;
          return start();
        });
      return next;
    },
    async close() {
      const opened = handle;
      handle = undefined;
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}
