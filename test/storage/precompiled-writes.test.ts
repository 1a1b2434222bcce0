import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/domain/memories/analyzer.js';
import type { MemoryRecord } from '../../src/domain/memories/memory-store.js';
import type { Database } from '../../src/storage/database.js';
import { precompiledInsert, precompileStatement } from '../../src/storage/precompiled.js';
import type { Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { DIALECTS } from '../helpers/databases.js';
import { openTestStores, type TestStores } from '../helpers/stores.js';

const AT = '2026-01-01T00:00:00.000Z';

const memory = (id: string, fields: Partial<MemoryRecord> = {}): MemoryRecord => ({
  id,
  userId: 'usr_a',
  text: 'Deploys run from the main branch after review',
  projectName: 'org/api',
  metadata: { category: 'standard', priority: 'high', tags: ['deploy', 'review', 'ci'] },
  createdAt: AT,
  updatedAt: AT,
  lastAccessedAt: null,
  expiresAt: '2027-01-01T00:00:00.000Z',
  pinned: true,
  supersededBy: null,
  ...fields,
});

/**
 * A memory create's statements are compiled once per database (issue 15, precompiled.ts): what they write
 * must be exactly what the builder writes. An import's insert at a version still goes through the builder,
 * so the two paths side by side, on the same input, must leave the same rows everywhere a create writes.
 */
describe.each(DIALECTS)('precompiled memory writes (%s)', (name) => {
  let opened: TestStores;
  let database: Database;
  let stores: Stores;

  beforeAll(async () => {
    opened = await openTestStores(name, ['usr_a']);
    ({ database, stores } = opened);
  });
  afterAll(async () => {
    await opened?.close();
  });

  const rowOf = async (id: string) => {
    const {
      seq: _seq,
      id: _id,
      ...rest
    } = await database.db.selectFrom('memories').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return rest;
  };
  const tagsOf = async (id: string) =>
    (
      await database.db
        .selectFrom('memory_tags')
        .select(['user_id', 'tag'])
        .where('memory_id', '=', id)
        .orderBy('tag')
        .execute()
    ).map((r) => `${r.user_id}:${r.tag}`);
  const auditOf = async (id: string) => {
    const [entry] = await stores.audit.list('usr_a', { limit: 10, objectId: id });
    const { seq: _seq, id: _eventId, objectId: _objectId, ...rest } = entry ?? ({} as never);
    return rest;
  };

  it('writes the same memory row, tags, audit row and search entry as the builder', async () => {
    const cases: [string, Partial<MemoryRecord>, number][] = [
      ['full', {}, 3],
      ['bare', { projectName: null, metadata: {}, expiresAt: null, pinned: false }, 0],
      // A long list: its own precompiled variant (one per length, up to MAX_TAGS).
      ['many-tags', { metadata: { tags: Array.from({ length: 12 }, (_, i) => `t${i}`) } }, 12],
    ];
    for (const [suffix, fields, tags] of cases) {
      const precompiled = `mem_pre_${suffix}`;
      const built = `mem_bld_${suffix}`;
      await stores.memories.insert(memory(precompiled, fields), TEST_CHANGE);
      await stores.memories.insertAtVersion(memory(built, fields), TEST_CHANGE, 1);
      expect(await rowOf(precompiled)).toEqual(await rowOf(built));
      expect(await tagsOf(precompiled)).toEqual(await tagsOf(built));
      expect((await tagsOf(precompiled)).length).toBe(tags);
      expect(await auditOf(precompiled)).toEqual(await auditOf(built));
      expect(await auditOf(precompiled)).toMatchObject({ action: 'created', objectType: 'memory' });
    }
    // Every one is found by its words, and the search statistics counted each create once.
    const found = await stores.memories.keywordCandidates('usr_a', { terms: analyze('deploys'), limit: 10, tags: [] });
    expect(found.length).toBe(6);
    expect((await stores.memories.termStatistics('usr_a', [])).documents).toBe(6);
  });

  it('writes nothing when the transaction around it rolls back', async () => {
    const insert = precompiledInsert(database.db, 'memory_tags', ['memory_id', 'user_id', 'tag']);
    await stores.memories.insert(memory('mem_tagged', { metadata: {} }), TEST_CHANGE);
    await expect(
      database.db.transaction().execute(async (trx) => {
        await insert(trx, { memory_id: 'mem_tagged', user_id: 'usr_a', tag: 'kept-only-if-committed' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await tagsOf('mem_tagged')).toEqual([]);
    await database.db
      .transaction()
      .execute((trx) => insert(trx, { memory_id: 'mem_tagged', user_id: 'usr_a', tag: 'committed' }));
    expect(await tagsOf('mem_tagged')).toEqual(['usr_a:committed']);
  });

  it('refuses a row without a value for one of its columns, before writing anything', async () => {
    const insert = precompiledInsert(database.db, 'memory_tags', ['memory_id', 'user_id', 'tag']);
    await expect(
      database.db.transaction().execute((trx) => insert(trx, { memory_id: 'mem_tagged', user_id: 'usr_a' })),
    ).rejects.toThrow('no value for tag');
    expect(await tagsOf('mem_tagged')).toEqual(['usr_a:committed']);
  });
});

/**
 * PostgreSQL runs the statements compiled once as named prepared statements (PG_PREPARED_STATEMENTS,
 * database.ts): the server parses and plans each once per connection. Seen from the connection itself,
 * in `pg_prepared_statements`, inside one transaction (one connection).
 */
describe.skipIf(!DIALECTS.includes('postgres'))('prepared statements on PostgreSQL', () => {
  const preparedAfterCreate = async (preparedStatements: boolean) => {
    const { database, stores, close } = await openTestStores('postgres', ['usr_a'], { preparedStatements });
    try {
      await stores.memories.insert(memory('mem_x', { metadata: {} }), TEST_CHANGE);
      const insertTag = precompiledInsert(database.db, 'memory_tags', ['memory_id', 'user_id', 'tag']);
      return await database.db.transaction().execute(async (trx) => {
        await insertTag(trx, { memory_id: 'mem_x', user_id: 'usr_a', tag: 'one' });
        await insertTag(trx, { memory_id: 'mem_x', user_id: 'usr_a', tag: 'two' });
        // A statement built per call runs unnamed as before.
        await trx.selectFrom('memory_tags').select('tag').where('user_id', '=', 'usr_a').execute();
        const { rows } = await sql<{ name: string; statement: string }>`
          select name, statement from pg_prepared_statements`.execute(trx);
        const tags = await trx.selectFrom('memory_tags').select('tag').orderBy('tag').execute();
        return { rows, tags: tags.map((t) => t.tag) };
      });
    } finally {
      await close();
    }
  };

  it('names each compiled-once statement once per connection, and only those', async () => {
    const { rows, tags } = await preparedAfterCreate(true);
    expect(tags).toEqual(['one', 'two']);
    const inserts = rows.filter((r) => r.statement.startsWith('insert into "memory_tags"'));
    expect(inserts).toHaveLength(1);
    expect(inserts[0]?.name).toMatch(/^cairn_\d+$/);
    expect(rows.filter((r) => r.statement.startsWith('select "tag" from "memory_tags"'))).toEqual([]);
  });

  it('keeps answering when a prepared select * meets a table that changed (a rolling upgrade)', async () => {
    const { database, stores, close } = await openTestStores('postgres', ['usr_a']);
    try {
      await stores.memories.insert(memory('mem_x', { metadata: { tags: ['kept'] } }), TEST_CHANGE);
      const tagsOf = precompileStatement(
        (id: string) => database.db.selectFrom('memory_tags').selectAll().where('memory_id', '=', id),
        1,
      );
      // The pool's first connection prepares it; one connection makes the next call land on it again.
      const first = await database.db.connection().execute(async (connection) => {
        const before = await tagsOf(connection, 'mem_x');
        // Another instance's migration adds a column meanwhile.
        await sql`alter table memory_tags add column added_later integer`.execute(database.db);
        const after = await tagsOf(connection, 'mem_x');
        const again = await tagsOf(connection, 'mem_x');
        return { before, after, again };
      });
      expect(first.before).toEqual([{ memory_id: 'mem_x', user_id: 'usr_a', tag: 'kept' }]);
      expect(first.after).toEqual([{ memory_id: 'mem_x', user_id: 'usr_a', tag: 'kept', added_later: null }]);
      expect(first.again).toEqual(first.after);
    } finally {
      await close();
    }
  });

  it('answers an identical create after a rolling upgrade added a column to memories', async () => {
    const { database, stores, close } = await openTestStores('postgres', ['usr_a']);
    try {
      const original = memory('mem_first', { text: 'Use tabs in Go.', metadata: {} });
      expect(await stores.memories.insertUnlessDuplicate(original, TEST_CHANGE)).toBeUndefined();
      // The duplicate lookup is prepared on the connection now; another instance's migration adds a column.
      expect(
        (await stores.memories.insertUnlessDuplicate(memory('mem_again', { text: 'use tabs in go' }), TEST_CHANGE))?.id,
      ).toBe('mem_first');
      await sql`alter table memories add column added_later integer`.execute(database.db);
      const answered = await stores.memories.insertUnlessDuplicate(
        memory('mem_later', { text: ' Use  TABS in Go', metadata: {} }),
        TEST_CHANGE,
      );
      expect(answered?.id).toBe('mem_first');
      expect(answered?.text).toBe('Use tabs in Go.');
    } finally {
      await close();
    }
  });

  it('prepares nothing with PG_PREPARED_STATEMENTS off', async () => {
    const { rows, tags } = await preparedAfterCreate(false);
    expect(tags).toEqual(['one', 'two']);
    expect(rows.filter((r) => r.name.startsWith('cairn_'))).toEqual([]);
  });
});
