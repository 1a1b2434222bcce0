import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { UnavailableError } from '../domain/common/errors.js';

/**
 * Wraps a Kysely dialect so that every failure meaning "the database cannot be reached right now"
 * (as the SQL dialect classifies its driver's errors) surfaces as the domain's `UnavailableError`, which
 * every transport already answers as a retryable 503. Translating here, where the driver's codes are
 * known, keeps transports free of any storage knowledge; other errors pass through untouched (stores
 * still read their codes, e.g. unique violations).
 */
export function translatingUnavailable(dialect: Dialect, isUnavailable: (error: unknown) => boolean): Dialect {
  const translate = (error: unknown): unknown => {
    if (!isUnavailable(error)) return error;
    const unavailable = new UnavailableError('Storage is temporarily unavailable; retry shortly', 5);
    // Kept for the log; the client only sees the message.
    unavailable.cause = error;
    return unavailable;
  };
  return {
    createDriver: () => new TranslatingDriver(dialect.createDriver(), translate),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

type Translate = (error: unknown) => unknown;

class TranslatingConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly translate: Translate,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (error) {
      throw this.translate(error);
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (error) {
      throw this.translate(error);
    }
  }
}

/** Hands the inner driver its own connections back: drivers may use more of them than executeQuery. */
class TranslatingDriver implements Driver {
  /** One wrapper per connection (SQLite hands out the same connection for every query). */
  private readonly wrappers = new WeakMap<DatabaseConnection, TranslatingConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly translate: Translate,
  ) {}

  private async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.translate(error);
    }
  }

  private unwrap(connection: DatabaseConnection): DatabaseConnection {
    return connection instanceof TranslatingConnection ? connection.inner : connection;
  }

  init(): Promise<void> {
    return this.run(() => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.run(() => this.inner.acquireConnection());
    let wrapper = this.wrappers.get(connection);
    if (!wrapper) {
      wrapper = new TranslatingConnection(connection, this.translate);
      this.wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.run(() => this.inner.beginTransaction(this.unwrap(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.run(() => this.inner.commitTransaction(this.unwrap(connection)));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.run(() => this.inner.rollbackTransaction(this.unwrap(connection)));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]) {
    return this.run(async () => this.inner.savepoint?.(this.unwrap(connection), name, compile));
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2],
  ) {
    return this.run(async () => this.inner.rollbackToSavepoint?.(this.unwrap(connection), name, compile));
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2],
  ) {
    return this.run(async () => this.inner.releaseSavepoint?.(this.unwrap(connection), name, compile));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
