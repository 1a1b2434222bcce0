import { randomBytes } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/domain/memories/analyzer.js';
import { type Database, migrateToLatest, openDatabase } from '../../src/storage/database.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import { memoryEmbeddingsPgvector } from '../../src/storage/migrations/0016-memory-embeddings-pgvector.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { createTestDatabase, DIALECTS, type Dialect, type TestDatabase } from '../helpers/databases.js';
import { pgvectorOffered } from '../helpers/vectors.js';

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

/** Float32 values with many exponents and signs, the same on every run. */
function sampleVectors(count: number, dimensions: number): Float32Array[] {
  let state = 12345;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, () =>
    Float32Array.from({ length: dimensions }, () => (next() - 0.5) * 10 ** Math.floor(next() * 20 - 10)),
  );
}

const vectorBytes = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/**
 * Memories with vectors in 0015's form (float32 bytes): `count` ordinary ones (more than one conversion
 * batch), a zero vector, a recorded failure (no vector) and one whose bytes do not match its dimensions.
 */
async function insertStoredVectors(database: Database, count: number) {
  const db = database.db as any;
  const now = '2026-01-01T00:00:00.000Z';
  await db
    .insertInto('users')
    .values({ id: 'usr_v', email: 'v@example.com', tier: 'free', created_at: now, updated_at: now })
    .execute();
  const vectors = [...sampleVectors(count, 8), new Float32Array(8)];
  const total = vectors.length + 2;
  const ids = Array.from({ length: total }, (_, i) => `mem_v${i}`);
  await db
    .insertInto('memories')
    .values(
      ids.map((id) => ({
        id,
        user_id: 'usr_v',
        text: `Memory ${id}`,
        project_name: null,
        category: null,
        priority: null,
        priority_rank: 1,
        tags_text: '',
        metadata: database.dialect.migrations === 'postgres' ? {} : '{}',
        created_at: now,
        updated_at: now,
        last_accessed_at: null,
        recency_ms: Date.parse(now),
        search_terms: ` ${analyze(`Memory ${id}`).join(' ')} `,
        token_count: 2,
        text_key: null,
      })),
    )
    .execute();
  const seqs = (await db.selectFrom('memories').select(['id', 'seq']).orderBy('seq').execute()).map((row: any) =>
    Number(row.seq),
  );
  const row = (seq: number, vector: Uint8Array | null, error: string | null) => ({
    memory_seq: seq,
    user_id: 'usr_v',
    model: 'm',
    dimensions: 8,
    text_hash: 'h',
    source_updated_at: now,
    vector,
    error,
  });
  const rows = [
    ...vectors.map((vector, i) => row(seqs[i] as number, vectorBytes(vector), null)),
    row(seqs[total - 2] as number, null, 'provider down'),
    row(seqs[total - 1] as number, vectorBytes(new Float32Array(3)), null),
  ];
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('memory_embeddings')
      .values(rows.slice(i, i + 200))
      .execute();
  }
  return { vectors, seqs, failed: seqs[total - 2] as number, wrongSize: seqs[total - 1] as number };
}

async function vectorColumnType(database: Database): Promise<string> {
  if (database.dialect.migrations === 'sqlite') return 'blob';
  const { sql } = await import('kysely');
  const rows = await sql<{ udt_name: string }>`select udt_name from information_schema.columns
    where table_name = 'memory_embeddings' and column_name = 'vector' and table_schema = current_schema()`.execute(
    database.db,
  );
  return rows.rows[0]?.udt_name ?? 'missing';
}

/** The stored vectors by seq, read back as float32 whichever form they are in. */
async function storedVectors(
  database: Database,
): Promise<Map<number, { vector: Float32Array | null; error: string | null }>> {
  const { sql } = await import('kysely');
  const pgvector = (await vectorColumnType(database)) === 'vector';
  const rows = await sql<{ seq: unknown; vector: unknown; error: string | null }>`select memory_seq as seq,
    ${pgvector ? sql`vector::text` : sql`vector`} as vector, error from memory_embeddings`.execute(database.db);
  const read = (value: unknown): Float32Array | null => {
    if (value === null) return null;
    if (typeof value === 'string') return Float32Array.from(value.slice(1, -1).split(',').map(Number));
    const bytes = Uint8Array.from(value as Uint8Array);
    return new Float32Array(bytes.buffer, 0, bytes.byteLength / 4);
  };
  return new Map(rows.rows.map((row) => [Number(row.seq), { vector: read(row.vector), error: row.error }]));
}

/**
 * Upgrading a database holding vectors: on PostgreSQL with pgvector offered, 0016 turns the column into
 * pgvector's type with every vector equal; anywhere else nothing changes.
 */
describe.each(DIALECTS)('migration 0016 on existing vectors (%s)', (dialect) => {
  const opened = databaseMigratedTo(dialect, '0015-memory-embeddings');
  let database: Database;
  beforeAll(() => {
    database = opened();
  });

  it('keeps every vector, in pgvector where PostgreSQL offers it, and can go back', async () => {
    const { vectors, seqs, failed, wrongSize } = await insertStoredVectors(database, 1203);
    expect(await migrateToLatest(database)).toContain('0016-memory-embeddings-pgvector');
    const pgvector = dialect === 'postgres' && (await pgvectorOffered(process.env.TEST_DATABASE_URL as string));
    expect(await vectorColumnType(database)).toBe(dialect === 'sqlite' ? 'blob' : pgvector ? 'vector' : 'bytea');
    expect((await database.vectorSearch()).method).toBe(
      dialect === 'sqlite' ? 'sqlite-vec' : pgvector ? 'pgvector' : 'bytea',
    );

    const stored = await storedVectors(database);
    expect(stored.size).toBe(vectors.length + 2);
    for (const [i, vector] of vectors.entries()) expect(stored.get(seqs[i] as number)?.vector).toEqual(vector);
    expect(stored.get(failed)).toEqual({ vector: null, error: 'provider down' });
    // pgvector cannot hold bytes that disagree with their row's dimensions: a failure backfill recomputes.
    expect(stored.get(wrongSize)?.vector).toEqual(pgvector ? null : new Float32Array(3));
    if (pgvector) expect(stored.get(wrongSize)?.error).toMatch(/migration 0016/);

    // Down (PostgreSQL): back to float32 bytes, every vector equal.
    const all = migrations(database.dialect.migrations);
    const { error } = await new Migrator({
      db: database.db,
      provider: { getMigrations: async () => all },
    }).migrateTo('0015-memory-embeddings');
    if (error) throw error;
    expect(await vectorColumnType(database)).toBe(dialect === 'sqlite' ? 'blob' : 'bytea');
    const back = await storedVectors(database);
    for (const [i, vector] of vectors.entries()) expect(back.get(seqs[i] as number)?.vector).toEqual(vector);
    expect(back.get(failed)).toEqual({ vector: null, error: 'provider down' });
  });
});

/** A PostgreSQL without pgvector (the check injected): 0016 leaves `bytea` and its vectors as they were. */
describe.skipIf(!DIALECTS.includes('postgres'))('migration 0016 without pgvector (postgres)', () => {
  const opened = databaseMigratedTo('postgres', '0015-memory-embeddings');
  let database: Database;
  beforeAll(() => {
    database = opened();
  });

  it('keeps the bytea column and every vector, and the server searches it in the application', async () => {
    const { vectors, seqs, wrongSize } = await insertStoredVectors(database, 10);
    const all = {
      ...migrations('postgres'),
      '0016-memory-embeddings-pgvector': memoryEmbeddingsPgvector('postgres', { available: async () => false }),
    };
    const { error } = await new Migrator({
      db: database.db,
      provider: { getMigrations: async () => all },
    }).migrateToLatest();
    if (error) throw error;
    expect(await vectorColumnType(database)).toBe('bytea');
    const stored = await storedVectors(database);
    for (const [i, vector] of vectors.entries()) expect(stored.get(seqs[i] as number)?.vector).toEqual(vector);
    expect(stored.get(wrongSize)?.vector).toEqual(new Float32Array(3));
    const search = await database.vectorSearch();
    expect({ method: search.method, exhaustive: search.exhaustive }).toEqual({ method: 'bytea', exhaustive: false });
  });
});

/**
 * pgvector offered but `create extension` refused (the role is no superuser; pgvector is not a trusted
 * extension): 0016 leaves `bytea`, and the rest of the migration's transaction goes on.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('migration 0016 when create extension is refused (postgres)', () => {
  it('keeps the bytea column and migrates to the end', async () => {
    const adminUrl = process.env.TEST_DATABASE_URL as string;
    if (!(await pgvectorOffered(adminUrl))) return; // nothing to refuse: the other suites cover this server
    const { default: pg } = await import('pg');
    const role = `cairn_test_plain_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const url = new URL(adminUrl);
    url.pathname = `/${role}`;
    // The session runs as the plain role (the admin connects, then takes the role it created).
    url.searchParams.set('options', `-c role=${role}`);
    let database: Database | undefined;
    try {
      await admin.query(`create role ${role} nosuperuser`);
      await admin.query(`create database ${role} owner ${role}`);
      database = await openDatabase(url.toString());
      const { sql } = await import('kysely');
      expect((await sql<{ user: string }>`select current_user as user`.execute(database.db)).rows).toEqual([
        { user: role },
      ]);
      expect(await migrateToLatest(database)).toContain('0016-memory-embeddings-pgvector');
      expect(await vectorColumnType(database)).toBe('bytea');
      expect((await database.vectorSearch()).method).toBe('bytea');
      expect((await sql`select 1 from pg_extension where extname = 'vector'`.execute(database.db)).rows).toEqual([]);
    } finally {
      await database?.close();
      await admin.query(`drop database if exists ${role} with (force)`);
      await admin.query(`drop role if exists ${role}`);
      await admin.end();
    }
  });
});

/** 0019 on a database whose keyword index holds a pending list: merged, and no list from then on. */
describe.skipIf(!DIALECTS.includes('postgres'))('migration 0019 on an existing keyword index (postgres)', () => {
  const opened = databaseMigratedTo('postgres', '0018-memory-user-newest');

  it('turns the pending list off and merges what it held; down turns it back on', async () => {
    const db = opened().db as any;
    const all = migrations('postgres');
    const options = async () =>
      (
        await sql<{ reloptions: string[] | null }>`select reloptions from pg_class
          where relname = 'memories_search_tokens'`.execute(db)
      ).rows[0]?.reloptions ?? [];
    // A row in the pending list (the default fastupdate = on) before the migration.
    const now = '2026-01-01T00:00:00.000Z';
    await db
      .insertInto('users')
      .values({ id: 'usr_1', email: 'g@example.com', tier: 'free', created_at: now, updated_at: now })
      .execute();
    await db
      .insertInto('memories')
      .values({
        id: 'mem_1',
        user_id: 'usr_1',
        text: 'rollback plan',
        project_name: null,
        category: null,
        priority: null,
        priority_rank: 1,
        tags_text: '',
        metadata: '{}',
        created_at: now,
        updated_at: now,
        last_accessed_at: null,
        recency_ms: 0,
        search_terms: ' rollback plan ',
        token_count: 2,
      })
      .execute();
    await all['0019-memory-search-gin-direct']?.up(db);
    expect(await options()).toContain('fastupdate=off');
    const { rows } = await sql<{ n: string }>`select count(*) as n from memories
      where search_tokens @@ 'rollback'::tsquery`.execute(db);
    expect(Number(rows[0]?.n)).toBe(1);
    await all['0019-memory-search-gin-direct']?.down?.(db);
    expect(await options()).not.toContain('fastupdate=off');
  });
});

/** 0020 on a database with memories: PostgreSQL fills the postings from them; SQLite does nothing. */
describe.each(DIALECTS)('migration 0020 on existing memories (%s)', (dialect) => {
  const opened = databaseMigratedTo(dialect, '0019-memory-search-gin-direct');

  it('fills one posting per distinct term with priority and project, and the streams read them', async () => {
    const database = opened();
    const db = database.db as any;
    const now = '2026-01-01T00:00:00.000Z';
    for (const id of ['usr_a', 'usr_b']) {
      await db
        .insertInto('users')
        .values({ id, email: `${id}@example.com`, tier: 'free', created_at: now, updated_at: now })
        .execute();
    }
    const memory = (id: string, user: string, text: string, project: string | null, priority: string | null) => {
      const tokens = analyze(text);
      return {
        id,
        user_id: user,
        text,
        project_name: project,
        category: null,
        priority,
        priority_rank: priority === 'high' ? 0 : 1,
        tags_text: '',
        metadata: JSON.stringify(priority ? { priority } : {}),
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
        memory('mem_1', 'usr_a', 'deploy canary deploy', 'acme/api', 'high'),
        memory('mem_2', 'usr_a', 'deploy rollback', null, null),
        memory('mem_3', 'usr_b', 'deploy other', 'acme/api', 'high'),
      ])
      .execute();

    const applied = await migrateToLatest(database);
    expect(applied).toContain('0020-memory-postings');
    if (dialect === 'sqlite') {
      // Nothing on SQLite (rows written here bypass FTS5, so there is nothing to search either).
      const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master
        where name = 'memory_postings'`.execute(db);
      expect(Number(rows[0]?.n)).toBe(0);
      return;
    }
    const store = createMemoryStore(database.db, database.dialect);
    const scope = { project: 'acme/api', ancestors: ['acme'] };
    const seqs = async (query: { terms: string[]; only?: 'high' | 'project' }) =>
      (await store.keywordCandidates('usr_a', { tags: [], scope, limit: 10, ...query })).map((row) => row.seq);
    expect(await seqs({ terms: ['deploi'] })).toEqual([2, 1]);
    expect(await seqs({ terms: ['deploi', 'rollback'] })).toEqual([2, 1]);
    expect(await seqs({ terms: ['deploi'], only: 'high' })).toEqual([1]);
    expect(await seqs({ terms: ['deploi'], only: 'project' })).toEqual([1]);

    const { rows } = await sql<{
      user_id: string;
      term: string;
      seq: string;
      high: boolean;
      project_name: string | null;
    }>`
      select user_id, term, seq, high, project_name from memory_postings order by user_id, seq, term`.execute(db);
    expect(rows.map((r) => [r.user_id, r.term, Number(r.seq), r.high, r.project_name])).toEqual([
      ['usr_a', 'canari', 1, true, 'acme/api'],
      ['usr_a', 'deploi', 1, true, 'acme/api'],
      ['usr_a', 'deploi', 2, false, null],
      ['usr_a', 'rollback', 2, false, null],
      ['usr_b', 'deploi', 3, true, 'acme/api'],
      ['usr_b', 'other', 3, true, 'acme/api'],
    ]);
    // Writes after the migration keep them: a move out of the project, a deletion.
    await store.update('usr_a', 'mem_1', { projectName: 'elsewhere' }, now, TEST_CHANGE);
    expect(await seqs({ terms: ['deploi'], only: 'project' })).toEqual([]);
    await store.delete('usr_a', 'mem_2', TEST_CHANGE);
    expect(await seqs({ terms: ['deploi', 'rollback'] })).toEqual([]);
    const all = migrations('postgres');
    await all['0020-memory-postings']?.down?.(db);
    const { rows: left } = await sql<{ n: string }>`select count(*) as n from pg_class
      where relname = 'memory_postings'`.execute(db);
    expect(Number(left[0]?.n)).toBe(0);
  });
});

/** 0023 on PostgreSQL: the unused English vector of memories and its index go; down brings both back. */
describe.skipIf(!DIALECTS.includes('postgres'))('migration 0023 on existing memories (postgres)', () => {
  const opened = databaseMigratedTo('postgres', '0022-memory-stamps');

  it('drops memories.search_vector and its index, keeps the memories searchable, and can go back', async () => {
    const database = opened();
    const db = database.db as any;
    const all = migrations('postgres');
    const now = '2026-01-01T00:00:00.000Z';
    const shape = async () => ({
      column: (
        await sql<{ n: string }>`select count(*) as n from information_schema.columns
          where table_name = 'memories' and column_name = 'search_vector'`.execute(db)
      ).rows[0]?.n,
      index: (
        await sql<{ n: string }>`select count(*) as n from pg_class where relname = 'memories_search'`.execute(db)
      ).rows[0]?.n,
    });
    await db
      .insertInto('users')
      .values({ id: 'usr_1', email: 'v@example.com', tier: 'free', created_at: now, updated_at: now })
      .execute();
    const store = createMemoryStore(db, database.dialect);
    await store.insert(
      {
        id: 'mem_1',
        userId: 'usr_1',
        text: 'Rollback plans are tested',
        projectName: null,
        metadata: {},
        createdAt: now,
        updatedAt: now,
        lastAccessedAt: null,
      },
      TEST_CHANGE,
      {},
    );
    expect(await shape()).toEqual({ column: '1', index: '1' });
    await all['0023-memories-drop-english-vector']?.up(db);
    expect(await shape()).toEqual({ column: '0', index: '0' });
    // Writes and the keyword search go on without it.
    const after = { ...(await store.findById('usr_1', 'mem_1')), id: 'mem_2', text: 'Rollback again' } as never;
    await store.insert(after, TEST_CHANGE, {});
    const found = await store.keywordCandidates('usr_1', { terms: analyze('rollback'), tags: [], limit: 10 });
    expect(found).toHaveLength(2);
    await all['0023-memories-drop-english-vector']?.down?.(db);
    expect(await shape()).toEqual({ column: '1', index: '1' });
    const { rows } = await sql<{ n: string }>`select count(*) as n from memories
      where search_vector @@ to_tsquery('english', 'rollback')`.execute(db);
    expect(Number(rows[0]?.n)).toBe(2);
  });
});
