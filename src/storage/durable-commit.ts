import { type FileHandle, open } from 'node:fs/promises';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  type SqliteDialectConfig,
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
  readonly #config: SqliteDialectConfig;
  readonly #sync: WalSyncer;

  /** `syncer` replaces the WAL's fdatasync (tests). */
  constructor(config: SqliteDialectConfig & { walPath: string; syncer?: WalSyncer }) {
    super(config);
    this.#config = config;
    this.#sync = config.syncer ?? walSyncer(config.walPath);
  }

  override createDriver(): Driver {
    return new DurableSqliteDriver(this.#config, this.#sync);
  }
}

class DurableSqliteDriver extends SqliteDriver {
  readonly #sync: WalSyncer;
  /** Whether the connection wrote since it was acquired (rolled back writes need no sync). */
  #wrote = false;

  constructor(config: SqliteDialectConfig, sync: WalSyncer) {
    super(config);
    this.#sync = sync;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    return {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        if (writes(query)) this.#wrote = true;
        return connection.executeQuery<R>(query);
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
  }

  /**
   * `BEGIN IMMEDIATE`: a transaction takes the write lock when it starts, waiting up to `busy_timeout` for
   * another process's writer (a `cairn` command, a second instance). A deferred one that read first and
   * then wrote would fail at once with SQLITE_BUSY when another process had committed meanwhile.
   */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await super.rollbackTransaction(connection);
    this.#wrote = false;
  }

  /** Kysely releases after COMMIT (or after a statement outside a transaction): the write is committed. */
  override async releaseConnection(): Promise<void> {
    const wrote = this.#wrote;
    this.#wrote = false;
    await super.releaseConnection();
    if (wrote) await this.#sync.sync();
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    await this.#sync.close();
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
