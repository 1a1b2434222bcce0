import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { generateApiKey } from '../../src/domain/accounts/api-key.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { awayFromHourBoundary } from '../helpers/clock.js';
import { COUNTERS, counterEnv, DIALECTS } from '../helpers/databases.js';

describe.each(DIALECTS)('API key authentication (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => t?.close());

  const listWith = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/prompts', headers: authorization ? { authorization } : {} });

  it('answers missing, malformed, unknown and wrongly-schemed credentials with the same 401', async () => {
    const { key } = await t.user();
    const cases = [
      undefined,
      'Bearer',
      'Bearer ',
      `Basic ${key}`,
      `Bearer ${key.slice(0, -1)}`, // too short
      `Bearer ${key}x`, // too long
      `Bearer ${key.slice(0, -1)}!`, // outside the alphabet
      `Bearer xyz_${key.slice(4)}`, // wrong prefix
      `Bearer ${generateApiKey()}`, // well formed, unknown
      `Bearer ${key} extra`,
    ];
    for (const authorization of cases) {
      const res = await listWith(authorization);
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json()).toEqual({ error: 'unauthorized', message: 'Invalid or missing API key' });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="cairn"');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('accepts the Bearer scheme case-insensitively', async () => {
    const { key } = await t.user();
    expect((await listWith(`bearer ${key}`)).statusCode).toBe(200);
    expect((await listWith(`BEARER ${key}`)).statusCode).toBe(200);
  });

  it('stores only the SHA-256 of a key, and shows the key once', async () => {
    const owner = await t.user();
    const rows = await t.container.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', owner.userId)
      .execute();
    expect(rows).toHaveLength(1);
    const row = rows[0] as (typeof rows)[number];
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(owner.key.slice(12));
    expect(row.prefix).toBe(owner.key.slice(0, 12));
    const listed = await t.container.services.keys.list({
      userId: owner.userId,
      integrations: new Set(),
      via: 'operator',
    });
    expect(JSON.stringify(listed)).not.toContain(owner.key.slice(12));
    expect(Object.keys(listed[0] ?? {}).sort()).toEqual(
      [
        'created_at',
        'id',
        'integrations',
        'last_used_at',
        'legacy',
        'name',
        'prefix',
        'request_count',
        'revoked_at',
      ].sort(),
    );
  });

  it('refuses a revoked key on the very next request', async () => {
    const owner = await t.user();
    expect((await listWith(`Bearer ${owner.key}`)).statusCode).toBe(200);
    await t.container.services.keys.revoke(OPERATOR, owner.keyId);
    const res = await listWith(`Bearer ${owner.key}`);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('unauthorized');
  });

  it('lets a user revoke and delete only their own keys', async () => {
    const a = await t.user();
    const b = await t.user();
    const actorB = { userId: b.userId, integrations: new Set<never>(), via: 'session' as const };
    await expect(t.container.services.keys.revoke(actorB, a.keyId)).rejects.toThrow('API key not found');
    await expect(t.container.services.keys.delete(actorB, a.keyId)).rejects.toThrow('API key not found');
    expect((await listWith(`Bearer ${a.key}`)).statusCode).toBe(200);
    const actorA = { ...actorB, userId: a.userId };
    await t.container.services.keys.delete(actorA, a.keyId);
    expect((await listWith(`Bearer ${a.key}`)).statusCode).toBe(401);
  });

  it('accepts imported legacy keys with all four integrations, and refuses importing one twice', async () => {
    const owner = await t.user();
    const actor = { userId: owner.userId, integrations: new Set<never>(), via: 'operator' as const };
    const legacy = 'amcp_0123456789abcdefXYZ_-';
    const imported = await t.container.services.keys.importLegacy(actor, { key: legacy });
    expect(imported).toMatchObject({ legacy: true, prefix: legacy.slice(0, 12) });
    expect(imported.integrations).toEqual(['ai_tools', 'cli', 'mcp_server', 'marketplace']);
    expect((await listWith(`Bearer ${legacy}`)).statusCode).toBe(200);
    await expect(t.container.services.keys.importLegacy(actor, { key: legacy })).rejects.toThrow(
      /already been imported/,
    );
    await expect(t.container.services.keys.importLegacy(actor, { key: 'svk_notlegacy' })).rejects.toThrow(
      /validation/i,
    );
  });

  it('tells any key who it belongs to (GET /me), without the secret', async () => {
    const owner = await t.user();
    const market = await t.key(owner.email, ['marketplace']);
    for (const [key, keyId, integrations] of [
      [owner.key, owner.keyId, ['ai_tools', 'cli']],
      [market.key, market.keyId, ['marketplace']],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        user: { id: owner.userId, email: owner.email, tier: 'free' },
        key: {
          id: keyId,
          name: expect.any(String),
          prefix: key.slice(0, 12),
          integrations,
          created_at: expect.any(String),
        },
      });
      expect(res.body).not.toContain(key.slice(12));
      expect(res.headers['x-ratelimit-limit']).toBe('1000');
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me' })).statusCode).toBe(401);
  });

  it('counts usage per key (401s not counted) and persists it in batches', async () => {
    await awayFromHourBoundary(5_000); // the hourly rows below assume one hour
    const owner = await t.user();
    const other = await t.key(owner.email, ['cli']);
    for (let i = 0; i < 3; i++) await listWith(`Bearer ${owner.key}`);
    await listWith(`Bearer ${other.key}`);
    // Unknown key (no one's usage): the last character changed, never to itself (1 key in 62 ends in X).
    const unknown = `${owner.key.slice(0, -1)}${owner.key.endsWith('X') ? 'Y' : 'X'}`;
    await listWith(`Bearer ${unknown}`);

    const row = () =>
      t.container.database.db
        .selectFrom('api_keys')
        .select(['request_count', 'last_used_at'])
        .where('id', '=', owner.keyId)
        .executeTakeFirstOrThrow();
    // Not yet written: the hot path does not write to the database...
    expect(Number((await row()).request_count)).toBe(0);
    // ...but lists already show the pending figures.
    const actor = { userId: owner.userId, integrations: new Set<never>(), via: 'operator' as const };
    const listed = await t.container.services.keys.list(actor);
    expect(listed.find((k) => k.id === owner.keyId)?.request_count).toBe(3);

    await t.container.usage.flush();
    const stored = await row();
    expect(Number(stored.request_count)).toBe(3);
    expect(stored.last_used_at).toMatch(/Z$/);
    const hourly = await t.container.database.db
      .selectFrom('usage_hourly')
      .selectAll()
      .where('user_id', '=', owner.userId)
      .execute();
    expect(hourly.map((h) => Number(h.request_count)).sort()).toEqual([1, 3]);
  });
});

describe.each(COUNTERS)('failed-authentication limit per client IP (%s counters)', (counters) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { AUTH_FAILURE_LIMIT: '3', ...counterEnv(counters) });
  });
  afterAll(async () => t?.close());

  it('answers 429 once an address has used up its failures, even for a valid key', async () => {
    await awayFromHourBoundary(5_000); // the count must stay in one hour's window (real clock, maybe Redis)
    const { key } = await t.user();
    const from = (remoteAddress: string, authorization: string) =>
      t.app.inject({ method: 'GET', url: '/api/v1/prompts', remoteAddress, headers: { authorization } });
    for (let i = 0; i < 3; i++) expect((await from('10.0.0.1', 'Bearer nope')).statusCode).toBe(401);
    const blocked = await from('10.0.0.1', 'Bearer nope');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toBe('rate_limit_exceeded');
    expect(blocked.json().retry_after).toBeGreaterThan(0);
    expect(blocked.headers['retry-after']).toBe(String(blocked.json().retry_after));
    // Guessing must not continue with only the right guess answered differently.
    expect((await from('10.0.0.1', `Bearer ${key}`)).statusCode).toBe(429);
    // Other addresses are unaffected.
    expect((await from('10.0.0.2', `Bearer ${key}`)).statusCode).toBe(200);
  });
});
