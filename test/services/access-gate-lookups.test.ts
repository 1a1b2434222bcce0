import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCounter } from '../../src/counters/memory-counter.js';
import { type AccessGate, createAccessGate } from '../../src/domain/accounts/access-gate.js';
import type { ApiKeyStore } from '../../src/domain/accounts/account-store.js';
import { generateApiKey, hashApiKey } from '../../src/domain/accounts/api-key.js';
import { NO_CHANGE_STAMP } from '../../src/domain/common/fresh-cache.js';
import { manualClock } from '../helpers/app.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { DIALECTS } from '../helpers/databases.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

/**
 * The hot read's looked-up way (http/hot-reads.ts) reads a key before the full way would: only for keys the
 * gate has admitted before, so that a guessed or unknown key costs one read (the full way's), not two.
 * Keys are read from the store on every request here (no change stamp, PostgreSQL's case).
 */
describe.each(DIALECTS)('access gate: which keys the looked-up way reads (%s)', (dialect) => {
  let t: TestStores;
  let gate: AccessGate;
  let reads: string[];
  const key = generateApiKey();

  beforeAll(async () => {
    t = await openTestStores(dialect, ['usr_a']);
    await t.stores.keys.insert(
      {
        id: 'key_a',
        userId: 'usr_a',
        name: 'a',
        prefix: key.slice(0, 12),
        keyHash: hashApiKey(key),
        integrations: ['ai_tools'],
        legacy: false,
        createdAt: '2026-01-01T00:00:00.000Z',
        lastUsedAt: null,
        requestCount: 0,
        revokedAt: null,
      },
      TEST_CHANGE,
    );
    reads = [];
    const keys: ApiKeyStore = {
      ...t.stores.keys,
      findPrincipalByHash: (keyHash) => {
        reads.push(keyHash);
        return t.stores.keys.findPrincipalByHash(keyHash);
      },
    };
    gate = createAccessGate({
      keys,
      counters: createMemoryCounter(),
      usage: { record: () => {} },
      clock: manualClock('2026-11-29T10:00:00.000Z'),
      tierLimits: { free: 100, pro: 1000, enterprise: 10000 },
      authFailureLimit: 10,
      changeStamp: NO_CHANGE_STAMP,
    });
  });
  afterAll(() => t.close());

  it('reads no key it never admitted, and reads an admitted one on every lookup', async () => {
    const bearer = `Bearer ${key}`;
    // Valid, but never admitted by this gate: the full way reads it.
    expect(await gate.lookUp(bearer, 'prompts.read')).toBeUndefined();
    expect(await gate.lookUp(`Bearer ${generateApiKey()}`, 'prompts.read')).toBeUndefined();
    expect(reads).toEqual([]);

    await gate.admit(bearer, 'prompts.read', '127.0.0.1');
    expect(reads).toEqual([hashApiKey(key)]);
    const peeked = await gate.lookUp(bearer, 'prompts.read');
    expect(peeked?.actor.userId).toBe('usr_a');
    expect(reads).toHaveLength(2);

    // Revoked since: read, found revoked, left to the full way.
    await t.stores.keys.revoke('usr_a', 'key_a', TEST_CHANGE);
    expect(await gate.lookUp(bearer, 'prompts.read')).toBeUndefined();
    expect(reads).toHaveLength(3);
  });
});
