import { connect } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Container, type ContainerOptions, createContainer } from '../../src/container.js';
import { createMemoryCounter } from '../../src/counters/memory-counter.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import type { Actor } from '../../src/domain/common/actor.js';
import { type ChangeStamp, NO_CHANGE_STAMP } from '../../src/domain/common/fresh-cache.js';
import type { WindowCounter } from '../../src/domain/limits/rate-limit.js';
import { buildApp } from '../../src/http/app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  COUNTERS,
  type CounterKind,
  counterEnv,
  createTestDatabase,
  DIALECTS,
  type Dialect,
  type TestDatabase,
} from '../helpers/databases.js';

/**
 * The hot read (src/http/hot-reads.ts) answers `GET /api/v1/prompts/{id_or_slug}` outside Fastify when its
 * key and prompt are fresh in memory. Its promise: the same answer, byte for byte, as the full way. Two
 * servers share one SQLite file — one with the hot read, one without — and every request goes to both;
 * each server counts its own rate limit, so their rate headers agree too.
 */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function fetchAnswer(url: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(url, { headers });
  const all: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    all[name] = value;
  });
  // Both servers stamp their own time and, unless the client gave one, their own request id.
  delete all.date;
  if (headers['x-request-id'] === undefined) delete all['x-request-id'];
  return { status: response.status, headers: all, body: await response.text() };
}

interface Backend {
  name: string;
  dialect: Dialect;
  counters: CounterKind;
  /** The way the hot read takes on it (hot-reads.ts). */
  way: 'in-memory' | 'looked-up';
}

const BACKENDS: Backend[] = [
  { name: 'SQLite, in-process counters', dialect: 'sqlite', counters: 'memory', way: 'in-memory' },
  { name: 'SQLite, Redis counters', dialect: 'sqlite', counters: 'redis', way: 'looked-up' },
  { name: 'PostgreSQL, in-process counters', dialect: 'postgres', counters: 'memory', way: 'looked-up' },
  { name: 'PostgreSQL + Redis', dialect: 'postgres', counters: 'redis', way: 'looked-up' },
].filter((b) => DIALECTS.includes(b.dialect as Dialect) && COUNTERS.includes(b.counters as CounterKind)) as Backend[];

/** A test app's configuration on `backend`: Redis keys under a prefix of their own, so each server counts alone. */
const envOf = (backend: Backend, databaseUrl: string) => ({
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: 'silent',
  USAGE_FLUSH_INTERVAL_MS: '3600000',
  ...counterEnv(backend.counters),
});

describe.each(BACKENDS)('hot reads ($name)', (backend) => {
  let hot: TestApp;
  let cold: { app: FastifyInstance; container: Container };
  let hotBase: string;
  let coldBase: string;
  let owner: { userId: string; email: string; key: string; keyId: string };
  let keys: Record<string, string>;
  let ownerActor: Actor;
  let slugs: string[];
  let ids: string[];

  beforeAll(async () => {
    hot = await createTestApp(backend.dialect, counterEnv(backend.counters));
    const coldContainer = await createContainer(loadConfig(envOf(backend, hot.database.url)));
    cold = { app: await buildApp(coldContainer, { logger: false, hotReads: false }), container: coldContainer };
    hotBase = await hot.app.listen({ port: 0, host: '127.0.0.1' });
    coldBase = await cold.app.listen({ port: 0, host: '127.0.0.1' });

    owner = await hot.user({ integrations: ['ai_tools', 'cli'] });
    const other = await hot.user({ integrations: ['ai_tools'] });
    keys = {
      owner: owner.key,
      marketplace: (await hot.key(owner.email, ['marketplace'])).key,
      mcpOnly: (await hot.key(owner.email, ['mcp_server'])).key,
      other: other.key,
      malformed: 'svk_not-a-key',
      none: '',
    };
    ownerActor = { userId: owner.userId, integrations: new Set(['ai_tools', 'cli']), via: 'rest' };
    const prompts = hot.container.services.prompts;
    const draft = await prompts.create(ownerActor, { title: 'Draft one', content: 'Uses @published-one {{x}}' });
    const published = await prompts.create(ownerActor, {
      title: 'Published one',
      content: 'Plain {{y}} and @missing',
      status: 'published',
    });
    const otherActor: Actor = { userId: other.userId, integrations: new Set(['ai_tools']), via: 'rest' };
    const theirs = await prompts.create(otherActor, { title: 'Theirs', content: 'Not yours' });
    slugs = [draft.slug, published.slug, theirs.slug, 'no-such-prompt'];
    ids = [draft.id, published.id, theirs.id];
  });

  afterAll(async () => {
    await cold.app.close();
    await cold.container.close();
    await hot.close();
  });

  async function both(path: string, key: string, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { ...extra };
    if (key !== '') headers.authorization = `Bearer ${key}`;
    const [fromHot, fromCold] = await Promise.all([
      fetchAnswer(`${hotBase}${path}`, headers),
      fetchAnswer(`${coldBase}${path}`, headers),
    ]);
    return { fromHot, fromCold };
  }

  it('serves a repeated read itself, with the bytes the full way sends', async () => {
    const served = hot.app.hotReads?.served ?? 0;
    const path = `/api/v1/prompts/${slugs[0]}`;
    for (let i = 0; i < 3; i++) {
      const { fromHot, fromCold } = await both(path, keys.owner as string, { 'x-request-id': `req-${i}` });
      expect(fromHot.status).toBe(200);
      expect(fromHot).toEqual(fromCold);
      expect(fromHot.headers['x-request-id']).toBe(`req-${i}`);
    }
    // The first read filled the caches through Fastify; the next two were answered by the hot read.
    expect(hot.app.hotReads?.served).toBe(served + 2);
    expect(cold.app.hotReads).toBeUndefined();
  });

  it('answers every request as the full way does, across keys, paths and changes (property)', async () => {
    const canonical = new Set([...slugs, ...ids].map((s) => `/api/v1/prompts/${s}`));
    const paths = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...canonical) },
      fc.constantFrom(...slugs).map((s) => `/api/v1/prompts/${s.toUpperCase()}`),
      fc.constantFrom(...slugs).map((s) => `/api/v1/prompts/${s}?fields=all`),
      fc.constantFrom(...slugs).map((s) => `/api/v1/prompts/${s}/`),
      fc.constantFrom(...slugs).map((s) => `/api/v1/prompts/${encodeURIComponent(s).replace('-', '%2D')}`),
    );
    const command = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('read' as const),
          path: paths,
          // Mostly keys that may read, so that many reads are the hot read's to answer.
          key: fc.constantFrom('owner', 'owner', 'owner', 'marketplace', 'marketplace', ...Object.keys(keys)),
          times: fc.integer({ min: 1, max: 3 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('edit' as const),
          which: fc.constantFrom(0, 1),
          text: fc.string({ maxLength: 30 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('publish' as const),
          which: fc.constantFrom(0, 1),
          published: fc.boolean(),
        }),
      },
    );
    const before = hot.app.hotReads?.served ?? 0;
    // Reads the hot read must answer itself: a canonical path read with the same key right after a 200 for
    // it, with no change in between (the first read filled both caches; nothing has emptied them since).
    let mustServe = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
        let previous: string | undefined;
        for (const c of commands) {
          if (c.kind === 'read') {
            // Repeated, as clients do: the first read of a key and prompt fills the caches.
            for (let i = 0; i < c.times; i++) {
              const { fromHot, fromCold } = await both(c.path, keys[c.key] as string);
              expect(fromHot).toEqual(fromCold);
              const read = `${c.key} ${c.path}`;
              if (fromHot.status === 200 && canonical.has(c.path) && previous === read) mustServe++;
              previous = fromHot.status === 200 ? read : undefined;
            }
          } else if (c.kind === 'edit') {
            previous = undefined;
            // Through the other server's container: another connection, as another instance would.
            await cold.container.services.prompts.update(ownerActor, slugs[c.which] as string, {
              content: `Edited ${c.text} {{v}} @published-one`,
            });
          } else {
            previous = undefined;
            await cold.container.services.prompts.update(ownerActor, slugs[c.which] as string, {
              status: c.published ? 'published' : 'draft',
            });
          }
        }
      }),
      { numRuns: 25 },
    );
    // The hot read answered (at least) every read it had to, not only the full way agreeing with itself. No
    // timer writes mid-test (usage flushes hourly here), so this count does not depend on the machine's pace.
    expect(mustServe).toBeGreaterThan(0);
    expect((hot.app.hotReads?.served ?? 0) - before).toBeGreaterThanOrEqual(mustServe);
  });

  it('takes the full way for a revoked key on the very next request', async () => {
    const { key, keyId } = await hot.key(owner.email, ['ai_tools']);
    const path = `/api/v1/prompts/${slugs[1]}`;
    await both(path, key);
    const warm = await both(path, key);
    expect(warm.fromHot.status).toBe(200);
    await cold.container.services.keys.revoke(OPERATOR, keyId);
    const { fromHot, fromCold } = await both(path, key);
    expect(fromHot.status).toBe(401);
    expect(fromHot).toEqual(fromCold);
  });

  it('leaves the 429 to the full way, counting each request once', async () => {
    const limited = await hot.user({ integrations: ['ai_tools'], rateLimit: 4 });
    const actor: Actor = { userId: limited.userId, integrations: new Set(['ai_tools']), via: 'rest' };
    const prompt = await hot.container.services.prompts.create(actor, { title: 'Limited', content: 'x' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const { fromHot, fromCold } = await both(`/api/v1/prompts/${prompt.slug}`, limited.key);
      expect(fromHot).toEqual(fromCold);
      statuses.push(fromHot.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it(`takes the ${backend.way} way`, () => {
    expect(hot.app.hotReads?.way).toBe(backend.way);
  });

  if (backend.way === 'looked-up') {
    it('answers a request whose store does not answer within the budget with the full way’s 503', async () => {
      // Counters whose admissions stop answering after the first (a Redis that went silent): the first
      // request (the full way's: the prompt is not in memory yet) fills the caches, the second stalls.
      const stalled = (): WindowCounter => {
        const inner = createMemoryCounter();
        let admits = 0;
        return {
          ...inner,
          admitNow: undefined,
          admit: (...args) => (admits++ < 1 ? inner.admit(...args) : new Promise(() => {})),
        };
      };
      const env = { ...envOf(backend, hot.database.url), REQUEST_TIMEOUT_MS: '200' };
      const servers = await Promise.all(
        [true, false].map(async (hotReads) => {
          const container = await createContainer(loadConfig(env), { counters: stalled() });
          const app = await buildApp(container, { logger: false, hotReads });
          return { container, app, base: await app.listen({ port: 0, host: '127.0.0.1' }) };
        }),
      );
      try {
        const path = `/api/v1/prompts/${slugs[1]}`;
        const headers = { authorization: `Bearer ${keys.owner}`, 'x-request-id': 'stalled' };
        const ask = () => Promise.all(servers.map(({ base }) => fetchAnswer(`${base}${path}`, headers)));
        const [warmHot, warmCold] = await ask();
        expect(warmHot?.status).toBe(200);
        expect(warmHot).toEqual(warmCold);
        const [fromHot, fromCold] = await ask();
        expect(fromHot?.status).toBe(503);
        expect(fromHot).toEqual(fromCold);
        // The hot read sent that 503 itself (the full way's came from Fastify's request budget).
        expect(servers[0]?.app.hotReads).toMatchObject({ way: 'looked-up', served: 0, expired: 1 });
      } finally {
        for (const { app, container } of servers) {
          await app.close();
          await container.close();
        }
      }
    });
  }

  if (backend.way !== 'in-memory') return;

  /** A server of its own on the same database whose hot read reads the change stamp through `wrap`. */
  async function serverWithStamp(wrap: (stamp: ChangeStamp) => ChangeStamp) {
    const container = await createContainer(
      loadConfig({ DATABASE_URL: hot.database.url, LOG_LEVEL: 'silent', USAGE_FLUSH_INTERVAL_MS: '3600000' }),
    );
    Object.assign(container, {
      database: { ...container.database, changeStamp: wrap(container.database.changeStamp) },
    });
    return { container, app: await buildApp(container, { logger: false }) };
  }

  it('answers the requests that arrive together after one change-stamp reading, in order, beside the full way', async () => {
    let readings = 0;
    const { container, app } = await serverWithStamp((stamp) => () => {
      readings++;
      return stamp();
    });
    try {
      const base = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
      const path = `/api/v1/prompts/${slugs[1]}`;
      const auth = { authorization: `Bearer ${keys.owner}` };
      await fetch(new URL(path, base), { headers: auth }); // fills both caches through Fastify
      const served = app.hotReads?.served ?? 0;
      readings = 0;
      // Five requests in one write (HTTP pipelining): one read of the socket brings them all in, so one batch
      // answers them. The third is the full way's (no such prompt: declined by the batch), the fourth never
      // the hot read's (another path: Fastify's at once); each is answered in its place, in order.
      const request = (p: string, id: string) =>
        `GET ${p} HTTP/1.1\r\nhost: ${base.host}\r\nauthorization: Bearer ${keys.owner}\r\nx-request-id: ${id}\r\n\r\n`;
      const ids = ['p0', 'p1', 'p2', 'p3', 'p4'];
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(base.port), base.hostname);
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString('utf8');
          if ((text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === ids.length && /\}$/.test(text)) {
            socket.end();
            resolve(text);
          }
        });
        socket.on('error', reject);
        const paths = [path, path, '/api/v1/prompts/no-such-prompt', '/api/v1/me', path];
        socket.write(ids.map((id, i) => request(paths[i] as string, id)).join(''));
      });
      const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
      const answeredIds = [...raw.matchAll(/x-request-id: (p\d)/g)].map((m) => m[1]);
      expect(statuses).toEqual([200, 200, 404, 200, 200]);
      expect(answeredIds).toEqual(ids);
      expect((app.hotReads?.served ?? 0) - served).toBe(3);
      // One reading for the batch (the full way reads its own for the 404, after the batch).
      expect(readings).toBe(1);
    } finally {
      await app.close();
      await container.close();
    }
  });

  it('hands every request to the full way when the change stamp cannot be read', async () => {
    const { container, app } = await serverWithStamp(() => () => {
      throw new Error('no stamp');
    });
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      const path = `/api/v1/prompts/${slugs[1]}`;
      for (let i = 0; i < 3; i++) {
        const [answer, expected] = await Promise.all([
          fetchAnswer(`${base}${path}`, { authorization: `Bearer ${keys.owner}`, 'x-request-id': `s${i}` }),
          fetchAnswer(`${coldBase}${path}`, { authorization: `Bearer ${keys.owner}`, 'x-request-id': `s${i}` }),
        ]);
        // Answered by Fastify (this server counts its own rate limit, so only the remaining count differs).
        expect(answer.status).toBe(200);
        expect(answer.body).toBe(expected.body);
        expect({ ...answer.headers, 'x-ratelimit-remaining': '' }).toEqual({
          ...expected.headers,
          'x-ratelimit-remaining': '',
        });
      }
      expect(app.hotReads?.served).toBe(0);
    } finally {
      await app.close();
      await container.close();
    }
  });
});

describe('hot reads: where they are installed, and which way', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const container = await createContainer(loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }));
    await container.close();
  });
  afterAll(() => database.drop());

  async function wayOf(env: Record<string, string>, options: ContainerOptions = {}, logger = false) {
    const container = await createContainer(
      loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', USAGE_FLUSH_INTERVAL_MS: '3600000', ...env }),
      options,
    );
    const app = await buildApp(container, logger ? {} : { logger: false });
    try {
      return app.hotReads?.way;
    } finally {
      await app.close();
      await container.close();
    }
  }

  it('keeps keys and counts in memory only with a change stamp and counters that admit at once', async () => {
    expect(await wayOf({})).toBe('in-memory');
    // Without a change stamp (PostgreSQL's case) keys are read per request.
    const container = await createContainer(
      loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', USAGE_FLUSH_INTERVAL_MS: '3600000' }),
    );
    Object.assign(container, { database: { ...container.database, changeStamp: NO_CHANGE_STAMP } });
    const app = await buildApp(container, { logger: false });
    expect(app.hotReads?.way).toBe('looked-up');
    await app.close();
    await container.close();
    // A shared counter store (the configuration decides; no Redis is needed to see which way is taken).
    const later: WindowCounter = { ...createMemoryCounter(), admitNow: undefined };
    expect(await wayOf({}, { counters: later })).toBe('looked-up');
  });

  it('is not installed where its answer could differ (a trusted proxy, debug logs)', async () => {
    expect(await wayOf({ TRUST_PROXY: '1' })).toBeUndefined();
    expect(await wayOf({ LOG_LEVEL: 'debug' }, {}, true)).toBeUndefined();
  });
});
