import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/domain/memories/analyzer.js';
import { type Database, migrateToLatest, openDatabase } from '../../src/storage/database.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { createTestDatabase, DIALECTS, type Dialect, type TestDatabase } from '../helpers/databases.js';

/**
 * A fresh database migrated up to `name` (inclusive) for the enclosing suite, closed and dropped after it;
 * the returned function gives the open database once the suite has started.
 */
function databaseMigratedTo(dialect: Dialect, name: string): () => Database {
  let testDb: TestDatabase | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    database = await openDatabase(testDb.url);
    const all = migrations(database.dialect.migrations);
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => all } });
    const { error } = await migrator.migrateTo(name);
    if (error) throw error;
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });
  return () => database as Database;
}

/** Upgrading a database that holds data: 0005 must give every existing prompt its history and graph. */
describe.each(DIALECTS)('migration 0005 on existing prompts (%s)', (dialect) => {
  const opened = databaseMigratedTo(dialect, '0004-sessions');
  let database: Database;
  beforeAll(() => {
    database = opened();
  });

  it('backfills version 1 and the reference graph, then the new columns work', async () => {
    const db = database.db as any;
    const now = '2026-01-01T00:00:00.000Z';
    const pg = dialect === 'postgres';
    await db
      .insertInto('users')
      .values({ id: 'usr_1', email: 'm@example.com', tier: 'free', created_at: now, updated_at: now })
      .execute();
    const prompt = (id: string, slug: string, content: string) => ({
      id,
      user_id: 'usr_1',
      slug,
      title: slug,
      description: '',
      content,
      search_text: content,
      status: 'draft',
      available_in_mcp: pg ? false : 0,
      labels: '["a"]',
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto('prompts')
      .values([prompt('prm_1', 'one', 'see @two and @ghost, mail x@two.com'), prompt('prm_2', 'two', 'plain')])
      .execute();

    expect(await migrateToLatest(database)).toContain('0005-prompt-versions');

    const prompts = await db.selectFrom('prompts').select(['id', 'version', 'variable_schema']).orderBy('id').execute();
    expect(
      prompts.map((p: any) => [
        p.id,
        p.version,
        typeof p.variable_schema === 'string' ? JSON.parse(p.variable_schema) : p.variable_schema,
      ]),
    ).toEqual([
      ['prm_1', 1, {}],
      ['prm_2', 1, {}],
    ]);
    const versions = await db.selectFrom('prompt_versions').selectAll().orderBy('prompt_id').execute();
    expect(versions.map((v: any) => [v.prompt_id, v.version, v.content, v.commit_message, v.created_at])).toEqual([
      ['prm_1', 1, 'see @two and @ghost, mail x@two.com', null, now],
      ['prm_2', 1, 'plain', null, now],
    ]);
    const edges = await db
      .selectFrom('prompt_references')
      .select(['prompt_id', 'target_slug'])
      .orderBy('target_slug')
      .execute();
    expect(edges).toEqual([
      { prompt_id: 'prm_1', target_slug: 'ghost' },
      { prompt_id: 'prm_1', target_slug: 'two' },
    ]);
  });
});

/** Upgrading a database with memories: 0006 gives every user their own statistics and index terms. */
describe.each(DIALECTS)('migration 0006 on existing memories (%s)', (dialect) => {
  const opened = databaseMigratedTo(dialect, '0005-prompt-versions');
  let database: Database;
  beforeAll(() => {
    database = opened();
  });

  it('fills per-user statistics and re-indexes, after which each user searches their own memories', async () => {
    const db = database.db as any;
    const now = '2026-01-01T00:00:00.000Z';
    for (const id of ['usr_a', 'usr_b']) {
      await db
        .insertInto('users')
        .values({ id, email: `${id}@example.com`, tier: 'free', created_at: now, updated_at: now })
        .execute();
    }
    const memory = (id: string, user: string, text: string, project: string | null) => {
      // As the store writes them: analysed (stemmed) tokens.
      const tokens = analyze(text);
      return {
        id,
        user_id: user,
        text,
        project_name: project,
        category: null,
        priority: null,
        priority_rank: 1,
        tags_text: '',
        metadata: '{}',
        created_at: now,
        updated_at: now,
        last_accessed_at: null,
        recency_ms: Date.parse(now),
        search_terms: ` ${tokens.join(' ')} `,
        token_count: tokens.length,
      };
    };
    await db
      .insertInto('memories')
      .values([
        memory('mem_1', 'usr_a', 'deploy canari', 'acme/api'),
        memory('mem_2', 'usr_a', 'deploy', null),
        memory('mem_3', 'usr_b', 'deploy deploy other word', null),
      ])
      .execute();

    const applied = await migrateToLatest(database);
    expect(applied).toContain('0006-memory-search-tenancy');
    expect(applied).toContain('0007-memory-search-vocabulary');
    // Both databases hold per-user statistics now: SQLite from 0006, PostgreSQL from 0007 (issue 16).

    const stats = await db.selectFrom('memory_search_stats').selectAll().orderBy('user_id').execute();
    expect(stats.map((s: any) => [s.user_id, Number(s.documents), Number(s.tokens)])).toEqual([
      ['usr_a', 2, 3],
      ['usr_b', 1, 4],
    ]);
    const store = createMemoryStore(database.db, database.dialect);
    const found = await store.keywordCandidates('usr_a', {
      terms: ['deploi'],
      tags: [],
      scope: { project: 'acme/api', ancestors: ['acme'] },
      limit: 10,
    });
    expect(found.map((row) => row.seq).sort()).toEqual([1, 2]);
    // Document frequencies are each user's own, whatever the other user holds.
    expect((await store.termStatistics('usr_a', ['deploi', 'canari', 'other'])).frequencies).toEqual([2, 1, 0]);
    expect(await store.termStatistics('usr_b', ['deploi', 'canari'])).toEqual({
      documents: 1,
      averageLength: 4,
      frequencies: [1, 0],
    });
    expect(await store.keywordCandidates('usr_b', { terms: ['canari'], tags: [], limit: 10 })).toEqual([]);
  });
});

/** Upgrading a database with memories, duplicates among them: 0009 keys them all, and keeps them all. */
describe.each(DIALECTS)('migration 0009 on existing memories (%s)', (dialect) => {
  const opened = databaseMigratedTo(dialect, '0007-memory-search-vocabulary');
  let database: Database;
  beforeAll(() => {
    database = opened();
  });

  it('keys every existing memory, duplicates included, and a create then finds the first stored', async () => {
    const db = database.db as any;
    const now = '2026-01-01T00:00:00.000Z';
    for (const id of ['usr_a', 'usr_b']) {
      await db
        .insertInto('users')
        .values({ id, email: `${id}@example.com`, tier: 'free', created_at: now, updated_at: now })
        .execute();
    }
    const memory = (id: string, user: string, text: string, project: string | null) => ({
      id,
      user_id: user,
      text,
      project_name: project,
      category: null,
      priority: null,
      priority_rank: 1,
      tags_text: '',
      metadata: '{}',
      created_at: now,
      updated_at: now,
      last_accessed_at: null,
      recency_ms: Date.parse(now),
      search_terms: ` ${analyze(text).join(' ')} `,
      token_count: analyze(text).length,
    });
    await db
      .insertInto('memories')
      .values([
        memory('mem_1', 'usr_a', 'Use tabs.', 'acme'),
        memory('mem_2', 'usr_a', ' use  TABS', 'acme'),
        memory('mem_3', 'usr_b', 'Use tabs', 'acme'),
        memory('mem_4', 'usr_a', 'Use tabs', null),
      ])
      .execute();
    // More than one batch of the backfill (500 a statement).
    await db
      .insertInto('memories')
      .values(Array.from({ length: 1100 }, (_, i) => memory(`mem_x${i}`, 'usr_b', `note ${i}`, 'bulk')))
      .execute();

    expect(await migrateToLatest(database)).toContain('0009-memory-dedupe');
    const unkeyed = await db.selectFrom('memories').select('id').where('text_key', 'is', null).execute();
    expect(unkeyed).toEqual([]);
    const bulk = await db.selectFrom('memories').select('text_key').where('project_name', '=', 'bulk').execute();
    expect(new Set(bulk.map((r: { text_key: string }) => r.text_key)).size).toBe(1100);

    const rows = (await db.selectFrom('memories').select(['id', 'text_key']).orderBy('id').execute()).filter(
      (r: { id: string }) => !r.id.startsWith('mem_x'),
    );
    expect(rows).toHaveLength(4);
    const key = Object.fromEntries(rows.map((r: { id: string; text_key: string }) => [r.id, r.text_key]));
    expect(key.mem_1).toMatch(/^[\w-]{43}$/);
    expect(key.mem_2).toBe(key.mem_1);
    expect(key.mem_3).toBe(key.mem_1); // the same text and project: the user keeps them apart
    expect(key.mem_4).not.toBe(key.mem_1);

    const store = createMemoryStore(database.db, database.dialect);
    const fresh = (id: string, userId: string, projectName: string | null) => ({
      id,
      userId,
      text: 'USE TABS!',
      projectName,
      metadata: {},
      createdAt: now,
      updatedAt: now,
      lastAccessedAt: null,
    });
    expect((await store.insertUnlessDuplicate(fresh('mem_5', 'usr_a', 'acme'), TEST_CHANGE))?.id).toBe('mem_1');
    expect((await store.insertUnlessDuplicate(fresh('mem_6', 'usr_b', 'acme'), TEST_CHANGE))?.id).toBe('mem_3');
    expect((await store.insertUnlessDuplicate(fresh('mem_7', 'usr_a', null), TEST_CHANGE))?.id).toBe('mem_4');
    expect(await store.insertUnlessDuplicate(fresh('mem_8', 'usr_a', 'acme/web'), TEST_CHANGE)).toBeUndefined();
    expect(await store.findById('usr_a', 'mem_8')).toMatchObject({ text: 'USE TABS!', projectName: 'acme/web' });
  });
});

/** Upgrading a database with memories: 0010 leaves every existing memory visible, unpinned, unlinked. */
describe.each(DIALECTS)('migration 0010 on existing memories (%s)', (dialect) => {
  const opened = databaseMigratedTo(dialect, '0009-memory-dedupe');
  let database: Database;
  beforeAll(() => {
    database = opened();
  });

  it('adds the lifecycle columns with their defaults, and lists, expiry and links work on the old rows', async () => {
    const db = database.db as any;
    const now = '2026-01-01T00:00:00.000Z';
    await db
      .insertInto('users')
      .values({ id: 'usr_l', email: 'l@example.com', tier: 'free', created_at: now, updated_at: now })
      .execute();
    await db
      .insertInto('memories')
      .values(
        ['mem_l1', 'mem_l2'].map((id) => ({
          id,
          user_id: 'usr_l',
          text: `Old memory ${id}`,
          project_name: 'old',
          category: null,
          priority: null,
          priority_rank: 1,
          tags_text: '',
          metadata: '{}',
          created_at: now,
          updated_at: now,
          last_accessed_at: null,
          recency_ms: Date.parse(now),
          search_terms: ` ${analyze(`Old memory ${id}`).join(' ')} `,
          token_count: 3,
          text_key: null,
        })),
      )
      .execute();
    expect(await migrateToLatest(database)).toContain('0010-memory-lifecycle');
    const store = createMemoryStore(database.db, database.dialect);
    const old = await store.findById('usr_l', 'mem_l1');
    expect(old).toMatchObject({ expiresAt: null, pinned: false, supersededBy: null, visibleUntil: null });
    const visible = () =>
      store
        .list('usr_l', { tags: [], visibleAt: '2026-06-01T00:00:00.000Z', offset: 0, limit: 10 })
        .then((page) => page.items.map((m) => m.id).sort());
    expect(await visible()).toEqual(['mem_l1', 'mem_l2']);
    await store.update('usr_l', 'mem_l1', { expiresAt: '2026-02-01T00:00:00.000Z' }, now, TEST_CHANGE);
    await store.update('usr_l', 'mem_l2', {}, now, TEST_CHANGE, { supersedes: [] });
    expect(await visible()).toEqual(['mem_l2']);
  });
});

/** Upgrading a database with memories: 0011 makes each its own version 1, and history starts from there. */
describe.each(DIALECTS)('migration 0011 on existing memories (%s)', (dialect) => {
  const opened = databaseMigratedTo(dialect, '0009-memory-dedupe');
  let database: Database;
  beforeAll(() => {
    database = opened();
  });

  it('gives every memory version 1 at its updated_at, with no version rows; the first change keeps it', async () => {
    const db = database.db as any;
    const created = '2026-01-01T00:00:00.000Z';
    const updated = '2026-01-02T00:00:00.000Z';
    await db
      .insertInto('users')
      .values({ id: 'usr_h', email: 'h@example.com', tier: 'free', created_at: created, updated_at: created })
      .execute();
    await db
      .insertInto('memories')
      .values({
        id: 'mem_h1',
        user_id: 'usr_h',
        text: 'Old memory',
        project_name: 'acme',
        category: null,
        priority: null,
        priority_rank: 1,
        tags_text: '',
        metadata: dialect === 'postgres' ? { a: 1 } : '{"a":1}',
        created_at: created,
        updated_at: updated,
        last_accessed_at: null,
        recency_ms: Date.parse(created),
        search_terms: ` ${analyze('Old memory').join(' ')} `,
        token_count: 2,
        text_key: null,
      })
      .execute();

    expect(await migrateToLatest(database)).toContain('0011-memory-versions');
    const row = await db.selectFrom('memories').select(['version', 'version_created_at']).executeTakeFirst();
    expect(row).toEqual({ version: 1, version_created_at: null });
    expect(await db.selectFrom('memory_versions').selectAll().execute()).toEqual([]);

    const store = createMemoryStore(database.db, database.dialect);
    expect((await store.versions('usr_h', 'mem_h1', { offset: 0, limit: 10 }))?.current).toMatchObject({
      version: 1,
      createdAt: updated,
    });
    // A write that changes nothing moves updated_at but not the version's time.
    await store.update('usr_h', 'mem_h1', { text: 'Old memory' }, '2026-01-03T00:00:00.000Z', TEST_CHANGE);
    await store.update('usr_h', 'mem_h1', { text: 'New memory' }, '2026-01-04T00:00:00.000Z', TEST_CHANGE);
    const v1 = await store.findVersion('usr_h', 'mem_h1', 1);
    expect(v1).toEqual({
      currentVersion: 2,
      found: { version: 1, text: 'Old memory', projectName: 'acme', metadata: { a: 1 }, createdAt: updated },
    });
  });
});
