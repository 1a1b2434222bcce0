import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrateToLatest, openDatabase } from '../../src/storage/database.js';
import { createStores, type Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

/** The memory store's history on each database: what an update keeps, the bounded prune, the reads. */
const AT = '2026-01-01T00:00:00.000Z';
const at = (minute: number) => new Date(Date.parse(AT) + minute * 60_000).toISOString();

describe.each(DIALECTS)('memory versions store (%s)', (name) => {
  let testDb: TestDatabase;
  let database: Database;
  let stores: Stores;

  beforeAll(async () => {
    testDb = await createTestDatabase(name);
    database = await openDatabase(testDb.url);
    await migrateToLatest(database);
    stores = createStores(database);
    for (const id of ['usr_a', 'usr_b']) {
      await stores.users.insert(
        {
          id,
          email: `${id}@example.com`,
          passwordHash: null,
          tier: 'free',
          rateLimit: null,
          isAdmin: false,
          createdAt: AT,
          updatedAt: AT,
        },
        TEST_CHANGE,
      );
    }
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  const insert = (id: string, text: string) =>
    stores.memories.insert(
      {
        id,
        userId: 'usr_a',
        text,
        projectName: null,
        metadata: { n: 0 },
        createdAt: AT,
        updatedAt: AT,
        lastAccessedAt: null,
      },
      TEST_CHANGE,
    );
  const kept = async (id: string) =>
    (
      await database.db
        .selectFrom('memory_versions')
        .select('version')
        .where('memory_id', '=', id)
        .orderBy('version')
        .execute()
    ).map((row) => row.version);

  it('keeps one snapshot per change, none for no change, and answers the version after the write', async () => {
    await insert('mem_v1', 'zero');
    expect(
      await stores.memories.update('usr_a', 'mem_v1', { text: 'one' }, at(1), TEST_CHANGE, {}, { keep: 10 }),
    ).toEqual({
      version: 2,
    });
    expect(
      await stores.memories.update('usr_a', 'mem_v1', { text: 'one' }, at(2), TEST_CHANGE, {}, { keep: 10 }),
    ).toEqual({
      version: 2,
    });
    expect(
      await stores.memories.update('usr_a', 'mem_v1', { metadata: { n: 1 } }, at(3), TEST_CHANGE, {}, { keep: 10 }),
    ).toEqual({
      version: 3,
    });
    expect(
      await stores.memories.update('usr_a', 'mem_v1', {}, at(4), TEST_CHANGE, {}, { keep: 10, force: true }),
    ).toEqual({
      version: 4,
    });
    expect(await kept('mem_v1')).toEqual([1, 2, 3]);
    const v2 = await stores.memories.findVersion('usr_a', 'mem_v1', 2);
    expect(v2).toEqual({
      currentVersion: 4,
      found: { version: 2, text: 'one', projectName: null, metadata: { n: 0 }, createdAt: at(1) },
    });
    const v4 = await stores.memories.findVersion('usr_a', 'mem_v1', 4);
    expect(v4?.found).toMatchObject({ version: 4, text: 'one', metadata: { n: 1 }, createdAt: at(4) });
    expect(
      await stores.memories.update('usr_b', 'mem_v1', { text: 'theirs' }, at(5), TEST_CHANGE, {}, { keep: 10 }),
    ).toBe(false);
    expect(await stores.memories.findVersion('usr_b', 'mem_v1', 1)).toBeUndefined();
    expect(await stores.memories.versions('usr_b', 'mem_v1', { offset: 0, limit: 10 })).toBeUndefined();
    expect(await kept('mem_v1')).toEqual([1, 2, 3]);
  });

  it('keeps nothing with keep 0, and prunes at most 16 beyond the retention per write', async () => {
    await insert('mem_p1', 'p0');
    for (let i = 1; i <= 40; i++) {
      await stores.memories.update('usr_a', 'mem_p1', { text: `p${i}` }, at(i), TEST_CHANGE, {}, { keep: 100 });
    }
    expect(await kept('mem_p1')).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Retention lowered to 5: each write drops at most 16 of the oldest, until 5 are left.
    await stores.memories.update('usr_a', 'mem_p1', { text: 'p41' }, at(41), TEST_CHANGE, {}, { keep: 5 });
    expect((await kept('mem_p1')).length).toBe(41 - 16);
    await stores.memories.update('usr_a', 'mem_p1', { text: 'p42' }, at(42), TEST_CHANGE, {}, { keep: 5 });
    await stores.memories.update('usr_a', 'mem_p1', { text: 'p43' }, at(43), TEST_CHANGE, {}, { keep: 5 });
    expect(await kept('mem_p1')).toEqual([39, 40, 41, 42, 43]);
    const page = await stores.memories.versions('usr_a', 'mem_p1', { offset: 1, limit: 2 });
    expect(page?.current).toMatchObject({ version: 44, textPreview: 'p43', textLength: 3 });
    expect(page?.kept.map((v) => v.version)).toEqual([42, 41]);
    expect(page?.total).toBe(5);
    // Keep 0: no snapshot of this change, and the history is pruned away.
    expect(
      await stores.memories.update('usr_a', 'mem_p1', { text: 'p44' }, at(44), TEST_CHANGE, {}, { keep: 0 }),
    ).toEqual({
      version: 45,
    });
    expect(await kept('mem_p1')).toEqual([]);
  });
});
