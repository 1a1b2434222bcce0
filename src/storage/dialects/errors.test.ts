import { describe, expect, it } from 'vitest';
import { postgresDialect } from './postgres/index.js';
import { sqliteDialect } from './sqlite/index.js';

const asError = (fields: { code?: string; message: string }) => Object.assign(new Error(fields.message), fields);

describe('unavailability (a 503 the client may retry)', () => {
  it('recognises the ways PostgreSQL is out of reach (as seen from pg and node)', () => {
    const unavailable = [
      { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
      { code: '57P01', message: 'terminating connection due to administrator command' },
      // What PostgreSQL answers a new connection while the database refuses them (allow_connections false).
      { code: '55000', message: 'database "cairn" is not currently accepting connections' },
      { code: '53300', message: 'sorry, too many clients already' },
      { code: '57P03', message: 'the database system is starting up' },
      { message: 'Connection terminated unexpectedly' },
      { message: 'timeout exceeded when trying to connect' },
    ];
    for (const error of unavailable) expect(postgresDialect.isUnavailable(asError(error)), error.message).toBe(true);
  });

  it('recognises a SQLite database locked past busy_timeout', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_LOCKED']) {
      expect(sqliteDialect.isUnavailable(asError({ code, message: 'database is locked' })), code).toBe(true);
    }
  });

  it('does not hide real failures behind a 503, on either database', () => {
    for (const dialect of [sqliteDialect, postgresDialect]) {
      for (const error of [
        new Error('boom'),
        asError({ code: '23505', message: 'duplicate key value violates unique constraint' }),
        asError({ code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: users.email' }),
        asError({ code: '55000', message: 'object not in prerequisite state' }),
        null,
        undefined,
      ]) {
        expect(dialect.isUnavailable(error), `${dialect.displayName}: ${String(error)}`).toBe(false);
      }
    }
  });
});

describe('unique violations', () => {
  it("are each database's own codes", () => {
    expect(postgresDialect.isUniqueViolation(asError({ code: '23505', message: 'duplicate key' }))).toBe(true);
    for (const code of ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']) {
      expect(sqliteDialect.isUniqueViolation(asError({ code, message: 'constraint failed' })), code).toBe(true);
    }
    for (const dialect of [sqliteDialect, postgresDialect]) {
      for (const code of ['SQLITE_CONSTRAINT_FOREIGNKEY', '23503', 'SQLITE_BUSY', undefined]) {
        expect(dialect.isUniqueViolation(asError({ code, message: 'x' })), `${dialect.displayName} ${code}`).toBe(
          false,
        );
      }
      expect(dialect.isUniqueViolation(null)).toBe(false);
    }
  });
});
