import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/domain/common/audit.js';
import { appendAudit } from '../../src/storage/audit-store.js';
import { type Database, migrateToLatest, openDatabase } from '../../src/storage/database.js';
import { createStores, type Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';

const AT = '2026-01-01T00:00:00.000Z';

const memory = (id: string, text: string) => ({
  id,
  userId: 'usr_a',
  text,
  projectName: null,
  metadata: {},
  createdAt: AT,
  updatedAt: AT,
  lastAccessedAt: null,
});

const entry = (objectId: string, at = AT): AuditEntry => ({
  ...TEST_CHANGE,
  at,
  userId: 'usr_a',
  objectType: 'memory',
  objectId,
  objectHandle: null,
  action: 'created',
  hashBefore: null,
  hashAfter: null,
});

/** The audit table as an ordered event log, and its rows written with their change or not at all. */
describe.each(DIALECTS)('audit store (%s)', (name) => {
  let testDb: TestDatabase;
  let database: Database;
  let stores: Stores;
  const all = () => stores.audit.list('usr_a', { limit: 1000 });

  beforeAll(async () => {
    testDb = await createTestDatabase(name);
    database = await openDatabase(testDb.url);
    await migrateToLatest(database);
    stores = createStores(database);
    await stores.users.insert(
      {
        id: 'usr_a',
        email: 'a@example.com',
        passwordHash: null,
        tier: 'free',
        rateLimit: null,
        isAdmin: false,
        createdAt: AT,
        updatedAt: AT,
      },
      TEST_CHANGE,
    );
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  it('rolls a batch back with its audit rows when its second item fails', async () => {
    await stores.memories.insert(memory('mem_taken', 'already here'), TEST_CHANGE);
    const before = await all();
    await expect(
      stores.memories.insertMany([memory('mem_new', 'first item'), memory('mem_taken', 'second item')], TEST_CHANGE),
    ).rejects.toThrow();
    expect(await stores.memories.findById('usr_a', 'mem_new')).toBeUndefined();
    expect(await all()).toEqual(before);
    // The same batch without the clash lands, with one row per memory.
    await stores.memories.insertMany([memory('mem_b1', 'one'), memory('mem_b2', 'two')], TEST_CHANGE);
    expect((await all()).slice(0, 2).map((e) => e.objectId)).toEqual(['mem_b2', 'mem_b1']);
  });

  it('appends nothing for a change that does not happen (a missing object, a second revocation)', async () => {
    const before = await all();
    expect(await stores.memories.update('usr_a', 'mem_nope', { text: 'x' }, AT, TEST_CHANGE)).toBe(false);
    expect(await stores.memories.delete('usr_b', 'mem_b1', TEST_CHANGE)).toBe(false);
    expect(await stores.prompts.delete('usr_a', 'prm_nope', TEST_CHANGE)).toBe(false);
    expect(await all()).toEqual(before);
  });

  it('keeps seq growing and never reuses one, even after the newest rows are pruned', async () => {
    await database.db.transaction().execute((trx) => appendAudit(trx, [entry('obj_1'), entry('obj_2')]));
    const [newest] = await all();
    expect(newest?.objectId).toBe('obj_2');
    await stores.audit.prune('9999-01-01T00:00:00.000Z', 10_000);
    expect(await all()).toEqual([]);
    await database.db.transaction().execute((trx) => appendAudit(trx, entry('obj_3')));
    const [next] = await all();
    expect(next?.seq).toBeGreaterThan(newest?.seq ?? Number.POSITIVE_INFINITY);
  });

  it('prunes in bounded rounds, oldest first, and follows the log after a seq', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => entry(`old_${i}`, '2025-01-01T00:00:00.000Z'));
    await database.db
      .transaction()
      .execute((trx) => appendAudit(trx, [...rows, entry('new', '2026-06-01T00:00:00.000Z')]));
    expect(await stores.audit.prune('2026-01-01T00:00:00.000Z', 10)).toBe(10);
    expect(await stores.audit.prune('2026-01-01T00:00:00.000Z', 10)).toBe(10);
    expect(await stores.audit.prune('2026-01-01T00:00:00.000Z', 10)).toBe(5);
    const left = await all();
    expect(left.map((e) => e.objectId)).toContain('new');
    expect(left.some((e) => e.objectId.startsWith('old_'))).toBe(false);
    // An outbox reader follows the log oldest first after the last seq it saw.
    const first = left[left.length - 1];
    const after = await stores.audit.list('usr_a', { afterSeq: first?.seq, limit: 10 });
    expect(after.map((e) => e.seq)).toEqual(
      left
        .slice(0, -1)
        .map((e) => e.seq)
        .reverse(),
    );
  });
  it('records an account’s changes in its own trail, nothing for a missing user, and keeps them after a delete', async () => {
    const gone = { id: 'usr_gone', email: 'gone@example.com' };
    const trail = () => stores.audit.list(gone.id, { objectType: 'account', limit: 100 });
    await stores.users.insert(
      { ...gone, passwordHash: null, tier: 'free', rateLimit: null, isAdmin: false, createdAt: AT, updatedAt: AT },
      TEST_CHANGE,
    );
    await stores.users.update(gone, { tier: 'pro' }, TEST_CHANGE);
    // No such user: nothing changes, nothing is recorded (in anyone's trail).
    await stores.users.update({ id: 'usr_nope', email: 'nope@example.com' }, { tier: 'pro' }, TEST_CHANGE);
    await stores.users.delete({ id: 'usr_nope', email: 'nope@example.com' }, TEST_CHANGE);
    expect(await stores.audit.list('usr_nope', { limit: 10 })).toEqual([]);
    await stores.users.delete(gone, TEST_CHANGE);
    expect(await stores.users.findById(gone.id)).toBeUndefined();
    // audit_events has no foreign key to users: the trail outlives the account until retention prunes it.
    expect((await trail()).map((e) => [e.action, e.objectId, e.objectHandle, e.hashBefore, e.hashAfter])).toEqual([
      ['deleted', gone.id, gone.email, null, null],
      ['updated', gone.id, gone.email, null, null],
      ['created', gone.id, gone.email, null, null],
    ]);
  });
});
