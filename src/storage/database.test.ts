import { describe, expect, it } from 'vitest';
import { isStorageUnavailable, parseDatabaseUrl } from './database.js';

describe('isStorageUnavailable', () => {
  it('recognises the ways a database is out of reach (as seen from pg and node)', () => {
    const unavailable = [
      { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
      { code: '57P01', message: 'terminating connection due to administrator command' },
      // What PostgreSQL answers a new connection while the database refuses them (allow_connections false).
      { code: '55000', message: 'database "cairn" is not currently accepting connections' },
      { code: '53300', message: 'sorry, too many clients already' },
      { code: '57P03', message: 'the database system is starting up' },
      { message: 'Connection terminated unexpectedly' },
      { code: 'SQLITE_BUSY', message: 'database is locked' },
    ];
    for (const error of unavailable)
      expect(isStorageUnavailable(Object.assign(new Error(error.message), error)), error.message).toBe(true);
  });

  it('does not hide real failures behind a 503', () => {
    for (const error of [
      new Error('boom'),
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      Object.assign(new Error('object not in prerequisite state'), { code: '55000' }),
      null,
      undefined,
    ]) {
      expect(isStorageUnavailable(error)).toBe(false);
    }
  });
});

describe('parseDatabaseUrl', () => {
  it('reads sqlite and postgres URLs and refuses others', () => {
    expect(parseDatabaseUrl('sqlite:./data/cairn.db')).toEqual({ dialect: 'sqlite', path: './data/cairn.db' });
    expect(parseDatabaseUrl('postgresql://h/db')).toEqual({ dialect: 'postgres', url: 'postgresql://h/db' });
    expect(() => parseDatabaseUrl('mysql://h/db')).toThrow(/sqlite: or postgres/);
    expect(() => parseDatabaseUrl('sqlite:')).toThrow(/file path/);
  });
});
