import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyPrincipal } from '../../src/domain/accounts/account-store.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { DIALECTS } from '../helpers/databases.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

const AT = '2026-01-01T00:00:00.000Z';

/**
 * The key lookup of every authenticated request. On PostgreSQL the lookups asked in one turn of the event
 * loop are one query (`key_hash = any($1)`, storage/api-key-store.ts); whatever the batch — duplicates,
 * unknown hashes, revoked keys, keys of several users — each caller gets what a lookup of its own gives.
 */
describe.each(DIALECTS)('API key lookups by hash (%s)', (dialect) => {
  let t: TestStores;
  const hashes = Array.from({ length: 6 }, (_, i) => `${String(i).repeat(2)}${'ab'.repeat(31)}`);

  beforeAll(async () => {
    t = await openTestStores(dialect, ['usr_a', 'usr_b']);
    for (const [i, keyHash] of hashes.entries()) {
      await t.stores.keys.insert(
        {
          id: `key_${i}`,
          userId: i % 2 === 0 ? 'usr_a' : 'usr_b',
          name: `key ${i}`,
          prefix: 'svk_test',
          keyHash,
          integrations: i % 3 === 0 ? ['ai_tools', 'cli'] : ['mcp_server'],
          legacy: false,
          createdAt: AT,
          lastUsedAt: null,
          requestCount: 0,
          revokedAt: null,
        },
        TEST_CHANGE,
      );
    }
    await t.stores.keys.revoke('usr_b', 'key_3', TEST_CHANGE);
  });
  afterAll(() => t.close());

  it('answers each of a turn’s lookups as a lookup of its own would (property)', async () => {
    const alone = new Map<string, KeyPrincipal | undefined>();
    const unknown = `ff${'cd'.repeat(31)}`;
    for (const hash of [...hashes, unknown]) alone.set(hash, await t.stores.keys.findPrincipalByHash(hash));
    expect(alone.get(hashes[0] as string)).toMatchObject({ keyId: 'key_0', userId: 'usr_a', revoked: false });
    expect(alone.get(hashes[3] as string)).toMatchObject({ keyId: 'key_3', userId: 'usr_b', revoked: true });
    expect(alone.get(unknown)).toBeUndefined();

    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...alone.keys()), { minLength: 1, maxLength: 40 }), async (asked) => {
        const together = await Promise.all(asked.map((hash) => t.stores.keys.findPrincipalByHash(hash)));
        expect(together).toEqual(asked.map((hash) => alone.get(hash)));
      }),
      { numRuns: 30 },
    );
  });

  it('sees a revocation committed before the lookup was asked', async () => {
    const hash = hashes[4] as string;
    expect((await t.stores.keys.findPrincipalByHash(hash))?.revoked).toBe(false);
    await t.stores.keys.revoke('usr_a', 'key_4', TEST_CHANGE);
    const [again, other] = await Promise.all([
      t.stores.keys.findPrincipalByHash(hash),
      t.stores.keys.findPrincipalByHash(hashes[0] as string),
    ]);
    expect(again?.revoked).toBe(true);
    expect(other?.revoked).toBe(false);
  });
});
