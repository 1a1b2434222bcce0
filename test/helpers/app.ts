import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { type Config, loadConfig } from '../../src/config.js';
import { type Container, type ContainerOptions, createContainer } from '../../src/container.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import type { Integration } from '../../src/domain/accounts/integrations.js';
import type { ScryptParameters } from '../../src/domain/accounts/password.js';
import type { Clock } from '../../src/domain/common/clock.js';
import { buildApp } from '../../src/http/app.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './databases.js';

/** A clock the test moves by hand. */
export function manualClock(
  start = '2026-11-21T10:00:00.000Z',
): Clock & { set(iso: string): void; advance(ms: number): void } {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (iso) => {
      now = new Date(iso).getTime();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  container: Container;
  database: TestDatabase;
  /** Creates a user (optionally with tier/limit) and an API key for it. */
  user(options?: {
    email?: string;
    integrations?: Integration[];
    tier?: 'free' | 'pro' | 'enterprise';
    rateLimit?: number;
  }): Promise<{ userId: string; email: string; key: string; keyId: string }>;
  /** Creates another key for an existing user. */
  key(email: string, integrations: Integration[]): Promise<{ key: string; keyId: string }>;
  /** `app.inject` with the Bearer key filled in. */
  request(key: string | undefined, options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * scrypt at N=2^10 instead of 2^17: a few milliseconds instead of a few hundred per hash on a loaded machine.
 * Tests where hashing is under test pass `passwordHashing: OWASP_SCRYPT` (the dashboard API suite does).
 */
export const CHEAP_PASSWORD_HASHING: ScryptParameters = { logN: 10, r: 8, p: 1 };

export async function createTestApp(
  dialect: Dialect = 'sqlite',
  env: Record<string, string> = {},
  {
    passwordHashing = CHEAP_PASSWORD_HASHING,
    ...options
  }: ContainerOptions & { passwordHashing?: ScryptParameters } = {},
): Promise<TestApp> {
  const database = await createTestDatabase(dialect);
  // Usage is flushed by hand in tests (container.usage.flush()), never by a timer mid-test.
  const config: Config = {
    ...loadConfig({
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      USAGE_FLUSH_INTERVAL_MS: '3600000',
      ...env,
    }),
    passwordHashing,
  };
  const container = await createContainer(config, options);
  const app = await buildApp(container, { logger: false });
  await app.ready();

  async function key(email: string, integrations: Integration[]) {
    const user = await container.services.users.requireByEmail(OPERATOR, email);
    const created = await container.services.keys.create(
      { userId: user.id, integrations: new Set(integrations), via: 'operator' },
      { name: `test key ${++counter}`, integrations },
    );
    return { key: created.key, keyId: created.id };
  }

  return {
    app,
    container,
    database,
    async user(opts = {}) {
      const email = opts.email ?? `user${++counter}-${Date.now()}@example.com`;
      const user = await container.services.users.create(OPERATOR, {
        email,
        tier: opts.tier ?? 'free',
        ...(opts.rateLimit !== undefined && { rateLimit: opts.rateLimit }),
      });
      const created = await key(email, opts.integrations ?? ['ai_tools', 'cli']);
      return { userId: user.id, email, ...created };
    },
    key,
    request(keyValue, options) {
      const headers = { ...(options.headers ?? {}) } as Record<string, string>;
      if (keyValue !== undefined) headers.authorization = `Bearer ${keyValue}`;
      return app.inject({ ...options, headers });
    },
    async close() {
      await app.close();
      await container.close();
      await database.drop();
    },
  };
}
