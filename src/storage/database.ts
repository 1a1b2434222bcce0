import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Database as BetterSqlite3Database } from 'better-sqlite3';
import { type Dialect, Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { PoolClient } from 'pg';
import { type ChangeStamp, NO_CHANGE_STAMP } from '../domain/common/fresh-cache.js';
import { postgresDialect } from './dialects/postgres/index.js';
import type { SqlDialect, VectorSearch } from './dialects/sql-dialect.js';
import { sqliteDialect } from './dialects/sqlite/index.js';
import { DurableSqliteDialect } from './durable-commit.js';
import { migrations } from './migrations/index.js';
import { preparedStatementName } from './precompiled.js';
import type { Schema } from './schema.js';
import { sqliteChangeStamp } from './sqlite-change-stamp.js';
import { translatingUnavailable } from './unavailable.js';

/**
 * An open database. Its failures to reach the server surface as the domain's `UnavailableError`
 * (unavailable.ts), so transports answer 503 without knowing about storage.
 */
export interface Database {
  readonly db: Kysely<Schema>;
  /** Everything that differs by database; only storage looks inside. */
  readonly dialect: SqlDialect;
  /** For messages to operators ("PostgreSQL", "SQLite"). */
  readonly displayName: string;
  /** Several server instances may share this database (so rate-limit counters should be shared: Redis). */
  readonly multiInstance: boolean;
  /**
   * Changes whenever any committed or pending data may differ from what this process last read (see
   * `createFreshCache`); a constant `undefined` where that cannot be told without a round trip.
   */
  readonly changeStamp: ChangeStamp;
  /**
   * Semantic search's similarity search, ready to run: SQLite loads sqlite-vec into the connection first;
   * PostgreSQL reads which type migration 0016 left `memory_embeddings.vector` (pgvector or bytea). Asked
   * after migrations and only when embeddings are configured, so the default installation loads nothing
   * more; later calls return the same answer.
   */
  vectorSearch(): Promise<VectorSearch>;
  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseLocation = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string };

/** `sqlite:<path>` (or `sqlite::memory:`) and `postgres://…` / `postgresql://…`. */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new Error('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/cairn.db');
    return { dialect: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${url.split(':')[0]}:…")`);
}

export interface OpenOptions {
  /**
   * PostgreSQL: run the statements compiled once as named prepared statements (default true;
   * `PG_PREPARED_STATEMENTS=false` for a connection pooler that cannot keep them, e.g. PgBouncer before
   * 1.21 in transaction mode).
   */
  preparedStatements?: boolean;
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  const location = parseDatabaseUrl(url);
  return location.dialect === 'sqlite' ? openSqlite(location.path) : openPostgres(location.url, options);
}

async function openSqlite(path: string): Promise<Database> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new BetterSqlite3(path);
  // WAL lets readers run beside the writer.
  const wal = connection.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  // Every commit is durable on power loss: fsynced by the driver off the event loop (durable-commit.ts), or
  // by SQLite itself (synchronous=FULL) where there is no WAL file to sync (`:memory:`).
  connection.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  // The savepoints of a group transaction (durable-commit.ts) journal every page they change; SQLite keeps
  // that journal in memory only up to 64 KiB, then writes it to a temporary file (a `pwrite` per page, about
  // 4% of a create's CPU under concurrent writes). In memory, it is freed at each commit.
  connection.pragma('temp_store = MEMORY');
  // Refresh the planner's statistics where they are missing or stale (cheap, bounded by analysis_limit).
  connection.pragma('analysis_limit = 1000');
  connection.pragma('optimize = 0x10002');
  keepFullTextLookupsOnKeys(connection);
  const loadVectorFunctions = async () => {
    const { load } = await import('sqlite-vec');
    load(connection);
  };
  // The WAL index is shared memory only with a WAL on a file (`:memory:` has neither).
  const driver = sqliteDriver(connection, wal);
  const openGroup = driver instanceof DurableSqliteDialect ? driver.openGroup : undefined;
  const changes = sqliteChangeStamp(connection, wal ? `${resolve(connection.name)}-shm` : undefined, openGroup);
  const database = databaseOf(driver, sqliteDialect, changes.stamp, loadVectorFunctions);
  return {
    ...database,
    close: async () => {
      await database.close();
      changes.close();
    },
  };
}

/** Kysely's driver for the connection: with a WAL, one whose commits are fsynced off the event loop. */
function sqliteDriver(connection: BetterSqlite3Database, wal: boolean): SqliteDialect {
  const database = withStatementCache(connection);
  return wal
    ? new DurableSqliteDialect({ database, walPath: `${resolve(connection.name)}-wal` }) // cwd may change later
    : new SqliteDialect({ database });
}

/** The handle both dialects hand out. */
function databaseOf(
  driver: Dialect,
  dialect: SqlDialect,
  changeStamp: ChangeStamp = NO_CHANGE_STAMP,
  loadVectorFunctions: () => Promise<void> = async () => undefined,
): Database {
  const db = new Kysely<Schema>({ dialect: translatingUnavailable(driver, dialect.isUnavailable) });
  let vectorSearch: Promise<VectorSearch> | undefined;
  return {
    db,
    dialect,
    displayName: dialect.displayName,
    multiInstance: dialect.multiInstance,
    changeStamp,
    vectorSearch() {
      vectorSearch ??= loadVectorFunctions().then(() => dialect.vectorSearch(db));
      // A failure (the database down at start) is not kept: the next call asks again.
      vectorSearch.catch(() => {
        vectorSearch = undefined;
      });
      return vectorSearch;
    },
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/**
 * FTS5 reads and deletes its own pages by key range (`… WHERE id >= ? AND id <= ?` on `<name>_fts_data`).
 * Statistics taken while an index was nearly empty (the `optimize` above, or a CLI command, on a new
 * database: `memories_fts_data` has 2 rows) make the planner scan that table instead, so every segment
 * merge read the whole index: writes slowed down as the index grew, until a restart's `optimize`
 * refreshed the numbers (issue 15, docs/performance.md). Recording such a table as large keeps the key
 * lookups whatever its size (deleting the row would not do: a connection keeps statistics it has loaded).
 */
function keepFullTextLookupsOnKeys(connection: BetterSqlite3Database): void {
  if (!connection.prepare("select 1 from sqlite_schema where name = 'sqlite_stat1'").get()) return;
  const updated = connection
    .prepare(
      `update sqlite_stat1 set stat = '${LARGE_TABLE_ROWS}'
       where tbl like '%\\_fts\\_data' escape '\\' and idx is null and cast(stat as integer) < ${LARGE_TABLE_ROWS}`,
    )
    .run();
  // Reloads the statistics, so statements prepared from now on (FTS5's own included) plan with them.
  if (updated.changes > 0) connection.exec('analyze sqlite_schema');
}

const LARGE_TABLE_ROWS = 1_000_000;

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; preparing costs more than running a small indexed query, so the
 * connection hands out cached statements by SQL text. Safe because Kysely runs one query at a time per
 * connection, so a statement is never used by two queries at once.
 */
function withStatementCache(connection: BetterSqlite3Database): BetterSqlite3Database {
  const cache = new Map<string, ReturnType<BetterSqlite3Database['prepare']>>();
  return new Proxy(connection, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver);
      return (sql: string) => {
        let statement = cache.get(sql);
        if (!statement) {
          // Queries built with variable IN-lists have many shapes; bound the cache instead of growing forever.
          if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
          statement = target.prepare(withGenericLimits(sql));
          cache.set(sql, statement);
        }
        return statement;
      };
    },
  });
}

/**
 * `limit ?` and `offset ?` become `limit +?` and `offset +?`: the same values, but no longer a bare
 * parameter. Since 3.5x SQLite plans a statement with the value bound to a bare LIMIT parameter (and, for a
 * virtual table such as FTS5, to OFFSET's) and marks the statement as depending on it, so binding any value
 * there again — the same one included — throws the plan away: every run of a cached statement with a bound
 * limit was parsed and planned anew (a create's exact-duplicate lookup and near-duplicate search, the
 * webhook check, every search stream; docs/performance.md, session 12). A unary plus is an expression SQLite
 * does not look into when planning, as every version before did with a bound limit: planned once, for any
 * limit. Kysely writes both keywords in lower case followed by one parameter.
 */
export function withGenericLimits(sql: string): string {
  return sql.replace(BOUND_LIMIT, '$1 +?');
}

const BOUND_LIMIT = /\b(limit|offset) \?/g;

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // An idle connection the server closes (restart, pg_terminate_backend) is reported here; without a
  // listener it would crash the process. The pool replaces it on the next query.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    // The same for a connection that is checked out when it is closed: its query fails (→ 503) instead.
    client.on('error', () => undefined);
    answerScriptsWithTheirLastResult(client);
    if (options.preparedStatements !== false) prepareCompiledOnce(client);
  });
  return databaseOf(new PostgresDialect({ pool }), postgresDialect);
}

/**
 * Runs the statements compiled once (the hot read's key and prompt, a create's writes: precompiled.ts) as
 * named prepared statements on this connection: PostgreSQL parses and plans each once per connection
 * instead of once per request, and the client sends its text once. Every other query (built per call,
 * migrations, cursors) runs as before. Kysely's driver calls `query(sql, parameters)`.
 */
function prepareCompiledOnce(client: PoolClient) {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  /** Names this connection stopped using: their statement's result changed shape under it. */
  const retired = new Set<string>();
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof text === 'string' && callback === undefined ? preparedStatementName(text) : undefined;
    if (name === undefined || retired.has(name)) return query(text, values, callback);
    return query({ name, text, values }).catch((error: unknown) => {
      // A table of a prepared `select *` gained or lost a column (another instance migrated it during a
      // rolling upgrade): PostgreSQL refuses the old plan (0A000). This connection runs the text unnamed
      // from now on; outside a transaction the retry answers this call too.
      if (!isChangedResultType(error)) throw error;
      retired.add(name);
      return query(text, values);
    });
  }) as PoolClient['query'];
}

/**
 * Several statements sent in one message (the simple query protocol, no parameters: inline-literals.ts)
 * answer with one result each; this connection hands Kysely the last one, whose rows are the answer (as
 * psql shows), instead of a list Kysely would read as no rows. Only a text without parameters can be such
 * a message: every other query (the hot path's, all prepared) passes through untouched.
 */
function answerScriptsWithTheirLastResult(client: PoolClient) {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    const answer = query(text, values, callback);
    const script = typeof text === 'string' && (!Array.isArray(values) || values.length === 0);
    if (!script || callback !== undefined || !(answer instanceof Promise)) return answer;
    return answer.then((result) => (Array.isArray(result) ? result.at(-1) : result));
  }) as PoolClient['query'];
}

const isChangedResultType = (error: unknown) =>
  (error as { code?: unknown }).code === '0A000' &&
  String((error as { message?: unknown }).message).includes('cached plan must not change result type');

/**
 * Applies pending migrations. Kysely holds a lock while it migrates (an advisory lock on PostgreSQL),
 * so instances starting together apply each migration once.
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const all = migrations(database.dialect.migrations);
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => all },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
