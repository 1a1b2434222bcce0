import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/database.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { freePort, waitFor } from '../helpers/net.js';

const CLI = fileURLToPath(new URL('../../dist/cli/cairn.mjs', import.meta.url));

// Every test spawns the CLI synchronously a few times (a Node start and a database open each): give a
// loaded two-core machine room.
describe.each(DIALECTS)('operator CLI (built binary, %s)', { timeout: 60_000 }, (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli/cairn.mjs is missing: run `npm run build` (npm test does)');
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => database?.drop());

  const cairn = (...args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATABASE_URL: database.url, CAIRN_DEBUG: '' },
      encoding: 'utf8',
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it('migrates, then reports the database up to date', () => {
    const first = cairn('migrate');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Applied: 0001-initial, 0002-memories, 0003-artifacts/);
    const second = cairn('migrate');
    expect(second.stdout).toBe('Database is up to date.\n');
  });

  it('creates users (first is admin), refuses duplicates and bad input with one line and an exit code', () => {
    const created = cairn('users', 'create', '--email', 'Ops@Example.com', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: 'ops@example.com', tier: 'free', is_admin: true });
    const second = cairn(
      'users',
      'create',
      '--email',
      'dev@example.com',
      '--tier',
      'pro',
      '--rate-limit',
      '77',
      '--json',
    );
    expect(JSON.parse(second.stdout)).toMatchObject({ tier: 'pro', rate_limit: 77, is_admin: false });

    const duplicate = cairn('users', 'create', '--email', 'ops@example.com');
    expect(duplicate.code).toBe(4);
    expect(duplicate.stderr.trim().split('\n')).toHaveLength(1);
    expect(duplicate.stderr).toMatch(/already exists/);

    const badEmail = cairn('users', 'create', '--email', 'not-an-email');
    expect(badEmail.code).toBe(2);
    expect(badEmail.stderr).toMatch(/^cairn: invalid input: email: /);
    expect(badEmail.stderr).not.toMatch(/\bat .*\.js:\d+/);

    const weak = cairn('users', 'create', '--email', 'weak@example.com', '--password', 'password');
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/password/i);

    const badTier = cairn('users', 'create', '--email', 'x@example.com', '--tier', 'gold');
    expect(badTier.code).toBe(2);
    expect(badTier.stderr).toMatch(/gold/);
  });

  it('updates a user’s tier and limit, and "default" clears the override', () => {
    const updated = cairn('users', 'update', '--email', 'dev@example.com', '--tier', 'enterprise', '--json');
    expect(JSON.parse(updated.stdout)).toMatchObject({ tier: 'enterprise', rate_limit: 77 });
    const cleared = cairn('users', 'update', '--email', 'dev@example.com', '--rate-limit', 'default', '--json');
    expect(JSON.parse(cleared.stdout)).toMatchObject({ rate_limit: null });
    const missing = cairn('users', 'update', '--email', 'nobody@example.com', '--tier', 'pro');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe('cairn: User not found\n');
    const badLimit = cairn('users', 'update', '--email', 'dev@example.com', '--rate-limit', '-5');
    expect(badLimit.code).toBe(2);
  });

  it('creates, lists, imports and revokes keys', async () => {
    const plain = cairn(
      'keys',
      'create',
      '--email',
      'ops@example.com',
      '--name',
      'laptop',
      '--integrations',
      'cli,ai_tools',
    );
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toMatch(/^svk_[A-Za-z0-9]{64}$/);
    expect(plain.stderr).toMatch(/cannot be shown again/);

    const json = cairn(
      'keys',
      'create',
      '--email',
      'ops@example.com',
      '--name',
      'ci',
      '--integrations',
      'mcp_server',
      '--json',
    );
    const created = JSON.parse(json.stdout);
    expect(created).toMatchObject({ name: 'ci', integrations: ['mcp_server'], legacy: false });
    expect(created.id).toMatch(/^key_/);
    expect(created.key).toMatch(/^svk_[A-Za-z0-9]{64}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));

    const legacy = cairn(
      'keys',
      'import-legacy',
      '--email',
      'ops@example.com',
      '--key',
      'ak_legacylegacylegacy123',
      '--json',
    );
    expect(JSON.parse(legacy.stdout)).toMatchObject({
      legacy: true,
      integrations: ['ai_tools', 'cli', 'mcp_server', 'marketplace'],
    });
    const notLegacy = cairn('keys', 'import-legacy', '--email', 'ops@example.com', '--key', 'zz_nope');
    expect(notLegacy.code).toBe(2);

    const listed = JSON.parse(cairn('keys', 'list', '--email', 'ops@example.com', '--json').stdout);
    expect(listed).toHaveLength(3);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const table = cairn('keys', 'list', '--email', 'ops@example.com');
    expect(table.stdout).toMatch(/^ID\s+NAME\s+PREFIX/);
    expect(table.stdout).toContain(created.prefix);

    const revoked = cairn('keys', 'revoke', created.id, '--json');
    expect(JSON.parse(revoked.stdout).revoked_at).toMatch(/Z$/);
    expect(cairn('keys', 'revoke', 'key_nope').code).toBe(3);
    // Operator commands are in the owner's audit trail: surface cli, client cairn-operator, no key.
    const db = await openDatabase(database.url);
    try {
      const trail = await db.db
        .selectFrom('audit_events')
        .select(['user_id', 'action', 'surface', 'key_id', 'client_name'])
        .where('object_id', '=', created.id)
        .orderBy('seq')
        .execute();
      expect(trail.map((e) => [e.action, e.surface, e.key_id, e.client_name])).toEqual([
        ['created', 'cli', null, 'cairn-operator'],
        ['revoked', 'cli', null, 'cairn-operator'],
      ]);
      expect(new Set(trail.map((e) => e.user_id)).size).toBe(1);
    } finally {
      await db.close();
    }

    const badIntegration = cairn(
      'keys',
      'create',
      '--email',
      'ops@example.com',
      '--name',
      'x',
      '--integrations',
      'cli,email',
    );
    expect(badIntegration.code).toBe(2);
    expect(badIntegration.stderr).toMatch(/integrations/);
    const noIntegration = cairn('keys', 'create', '--email', 'ops@example.com', '--name', 'x', '--integrations', ',');
    expect(noIntegration.code).toBe(2);
    const missingOption = cairn('keys', 'create', '--email', 'ops@example.com');
    expect(missingOption.code).toBe(2);
    expect(missingOption.stderr).toMatch(/--name/);
  });

  it('reports a bad configuration in one message', () => {
    const result = spawnSync(process.execPath, [CLI, 'migrate'], {
      env: { ...process.env, DATABASE_URL: 'mysql://nope', PORT: 'abc' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/DATABASE_URL/);
    expect(result.stderr).toMatch(/PORT/);
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });
});

describe.each(DIALECTS)('cairn serve end to end (%s)', (dialect) => {
  let database: TestDatabase;
  let server: ChildProcess | undefined;
  let base = '';
  let key = '';

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    spawnSync(process.execPath, [CLI, 'users', 'create', '--email', 'e2e@example.com'], { env });
    key = spawnSync(
      process.execPath,
      [CLI, 'keys', 'create', '--email', 'e2e@example.com', '--name', 'e2e', '--integrations', 'ai_tools,cli'],
      { env, encoding: 'utf8' },
    ).stdout.trim();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [CLI, 'serve'], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
    await waitFor(`${base}/healthz`);
  });

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
  });

  it('serves the prompt lifecycle to a key minted by the CLI, and flushes usage on SIGTERM', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/v1/prompts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'E2E', content: 'Hello {{who}}' }),
    });
    expect(created.status).toBe(201);
    const { id, slug } = (await created.json()) as { id: string; slug: string };
    const listed = (await (await fetch(`${base}/api/v1/prompts`, { headers })).json()) as { total: number };
    expect(listed.total).toBe(1);
    const read = (await (await fetch(`${base}/api/v1/prompts/${slug}`, { headers })).json()) as { variables: string[] };
    expect(read.variables).toEqual(['who']);
    const updated = await fetch(`${base}/api/v1/prompts/${id}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ status: 'published' }),
    });
    expect(updated.status).toBe(200);
    expect((await fetch(`${base}/api/v1/prompts/${id}`, { method: 'DELETE', headers })).status).toBe(200);
    expect((await fetch(`${base}/api/v1/prompts/${id}`, { headers })).status).toBe(404);

    // Graceful shutdown writes the buffered usage: 6 requests made with the key.
    const exited = new Promise<number | null>((resolve) => server?.once('exit', resolve));
    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
    const keys = spawnSync(process.execPath, [CLI, 'keys', 'list', '--email', 'e2e@example.com', '--json'], {
      env: { ...process.env, DATABASE_URL: database.url },
      encoding: 'utf8',
    });
    const [stored] = JSON.parse(keys.stdout);
    expect(stored.request_count).toBe(6);
    expect(stored.last_used_at).toMatch(/Z$/);
  });
});
