import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The databases every storage-touching suite runs against: SQLite always; PostgreSQL when
 * TEST_DATABASE_URL is set (a fresh database per suite, dropped afterwards, so leftovers never
 * decide a result).
 */
export interface TestDatabase {
  dialect: 'sqlite' | 'postgres';
  url: string;
  drop(): Promise<void>;
}

export type Dialect = TestDatabase['dialect'];

export const DIALECTS: Dialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

let announced = false;
function announce(): void {
  if (announced) return;
  announced = true;
  console.info(
    process.env.TEST_DATABASE_URL
      ? '[cairn tests] storage suites run on SQLite and on PostgreSQL (TEST_DATABASE_URL, a fresh database per suite).'
      : '[cairn tests] TEST_DATABASE_URL is not set: PostgreSQL variants are skipped; SQLite only.',
  );
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  announce();
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-test-'));
    return {
      dialect,
      url: `sqlite:${join(dir, 'cairn.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const { default: pg } = await import('pg');
  const name = `cairn_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** Rate-limit counters every counting suite runs with: in-process always; Redis when TEST_REDIS_URL is set. */
export type CounterKind = 'memory' | 'redis';
export const COUNTERS: CounterKind[] = process.env.TEST_REDIS_URL ? ['memory', 'redis'] : ['memory'];

let announcedRedis = false;
/** Environment for a test app using `kind` counters; Redis keys get a prefix of their own per app. */
export function counterEnv(kind: CounterKind): Record<string, string> {
  if (!process.env.TEST_REDIS_URL && !announcedRedis) {
    announcedRedis = true;
    console.info(
      '[cairn tests] TEST_REDIS_URL is not set: Redis counter variants are skipped; in-process counters only.',
    );
  }
  if (kind === 'memory') return {};
  return {
    REDIS_URL: process.env.TEST_REDIS_URL as string,
    REDIS_KEY_PREFIX: `cairn-test-${randomBytes(6).toString('hex')}:`,
  };
}
