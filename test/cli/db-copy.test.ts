import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';

const CLI = fileURLToPath(new URL('../../dist/cli/cairn.mjs', import.meta.url));
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const BIG = `${'Ünïcödé ✓ 漢字 — '.repeat(100_000)}end`; // ≈ 2.6 MB of multi-byte text

describe.runIf(process.env.TEST_DATABASE_URL)('cairn db copy', () => {
  let source: TestApp;
  let postgres: TestDatabase;
  let backToSqlite: TestDatabase;
  let key: string;
  let email: string;
  let versioned: string;

  beforeAll(async () => {
    source = await createTestApp('sqlite');
    const user = await source.user();
    key = user.key;
    email = user.email;
    const post = (url: string, payload: Record<string, unknown>) =>
      source.request(key, { method: 'POST', url, payload });
    await post('/api/v1/prompts', { title: 'Réview', content: 'Review {{lang}} @style', labels: ['code', 'ünï'] });
    await post('/api/v1/prompts', { title: 'Style', slug: 'style', content: 'Be kind', available_in_mcp: true });
    await source.request(key, { method: 'PUT', url: '/api/v1/prompts/style', payload: { content: 'Be very kind' } });
    await source.request(key, {
      method: 'PUT',
      url: '/api/v1/prompts/style/environments/production',
      payload: { version: 1, marketplace: true },
    });
    for (let i = 0; i < 30; i++) {
      await post('/api/v1/memories', {
        text: `Mémoire numéro ${i} — naïve café`,
        project_name: `proj/${i % 3}`,
        metadata: { tags: ['ünï', `t${i}`], priority: i % 2 ? 'high' : 'low' },
      });
    }
    // A memory with history: its kept version is copied too (memory_versions).
    versioned = (await post('/api/v1/memories', { text: 'Versioned memory, first words' })).json().memory_id;
    await source.request(key, {
      method: 'PUT',
      url: `/api/v1/memories/${versioned}`,
      payload: { text: 'Versioned memory, second words', metadata: { k: 'v' } },
    });
    await post('/api/v1/artifacts', { project: 'docs/big', slug: 'big', title: 'Big', content: 'first version' });
    await source.request(key, { method: 'PUT', url: '/api/v1/artifacts/docs%2Fbig/big', payload: { content: BIG } });
    await source.container.usage.flush();
    await source.container.access.flush();
    postgres = await createTestDatabase('postgres');
    backToSqlite = await createTestDatabase('sqlite');
  }, 60_000);

  afterAll(async () => {
    await source?.close();
    await postgres?.drop();
    await backToSqlite?.drop();
  });

  const copy = (from: string, to: string) =>
    spawnSync(process.execPath, [CLI, 'db', 'copy', '--from', from, '--to', to], { encoding: 'utf8' });

  async function verify(url: string) {
    const { loadConfig } = await import('../../src/config.js');
    const { createContainer } = await import('../../src/container.js');
    const { buildApp } = await import('../../src/http/app.js');
    const container = await createContainer(
      loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', USAGE_FLUSH_INTERVAL_MS: '3600000' }),
    );
    const app = await buildApp(container, { logger: false });
    try {
      const get = (path: string) =>
        app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
      expect(
        (await get('/api/v1/prompts?label=%C3%BCn%C3%AF')).json().prompts.map((p: { title: string }) => p.title),
      ).toEqual(['Réview']);
      // Environments (with their marketplace mark, a boolean) come along.
      expect((await get('/api/v1/prompts/style?environment=production')).json()).toMatchObject({
        content: 'Be kind',
        version: 1,
      });
      expect((await get('/api/v1/prompts/style/environments')).json().environments).toMatchObject([
        { name: 'production', version: 1, marketplace: true },
      ]);
      const memories = (await get('/api/v1/memories?search=caf%C3%A9&per_page=100')).json();
      expect(memories.total).toBe(30);
      // A misspelling is corrected from the user's vocabulary, which the copy rebuilt (fts5vocab on SQLite,
      // memory_terms on PostgreSQL).
      expect((await get('/api/v1/memories?search=cafee&per_page=100')).json().total).toBe(30);
      expect((await get('/api/v1/memories?tag=%C3%BCn%C3%AF&project_name=proj%2F1')).json().total).toBe(10);
      const artifact = (await get('/api/v1/artifacts/docs%2Fbig/big')).json();
      expect(artifact).toMatchObject({ version: 2, size_bytes: Buffer.byteLength(BIG), sha256: sha(BIG) });
      expect(artifact.content).toBe(BIG);
      expect((await get('/api/v1/artifacts/docs%2Fbig/big/versions/1')).json().content).toBe('first version');
      expect((await get('/api/v1/artifacts?search=version')).json().total).toBe(0);
      expect((await get(`/api/v1/memories/${versioned}/versions/1`)).json()).toMatchObject({
        text: 'Versioned memory, first words',
        metadata: {},
        current: false,
      });
      expect((await get(`/api/v1/memories/${versioned}/versions`)).json().total).toBe(2);
      // New rows continue after the copied ones.
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/memories',
        headers: { authorization: `Bearer ${key}` },
        // A text of its own per target: the second copy carries the first one's, and an equal text would be
        // answered as a duplicate (200) instead of stored.
        payload: { text: `after the copy to ${url.split(':')[0]}` },
      });
      expect(created.statusCode).toBe(201);
      const keys = await container.services.keys.list({
        userId: (await container.services.users.requireByEmail(OPERATOR, email)).id,
        integrations: new Set(),
        via: 'operator',
      });
      expect(keys[0]?.request_count).toBeGreaterThan(30);
    } finally {
      await app.close();
      await container.close();
    }
  }

  it('copies a populated SQLite database to PostgreSQL, verified row by row and through the API', async () => {
    const result = copy(source.database.url, postgres.url);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Copy complete/);
    expect(result.stdout).toMatch(/memories\s+31?\d\s+\d+\s+ok/);
    expect(result.stdout).not.toMatch(/MISMATCH/);
    expect(result.stderr).toMatch(/artifact_versions\s+\[#+\] 1\/1/);
    await verify(postgres.url);
  }, 60_000);

  it('copies back from PostgreSQL to a new SQLite database, rebuilding its full-text indexes', async () => {
    const result = copy(postgres.url, backToSqlite.url);
    expect(result.status, result.stderr).toBe(0);
    await verify(backToSqlite.url);
  }, 60_000);

  it('refuses a target that is not empty, and the same database twice', () => {
    const again = copy(source.database.url, postgres.url);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/not empty/);
    const same = copy(source.database.url, source.database.url);
    expect(same.status).toBe(2);
  });
});
