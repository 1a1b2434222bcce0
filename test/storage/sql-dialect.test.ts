import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/domain/common/errors.js';
import { analyze } from '../../src/domain/memories/analyzer.js';
import { type Database, migrateToLatest, openDatabase } from '../../src/storage/database.js';
import { createStores, type Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from '../helpers/change.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { testUser } from '../helpers/stores.js';

/**
 * The SQL dialect object of each database, run against that database: full-text search, path matching,
 * value conversion and error classification must mean the same on SQLite and PostgreSQL.
 */
const AT = '2026-01-01T00:00:00.000Z';

const artifact = (id: string, userId: string, project: string, content: string) => ({
  id,
  userId,
  project,
  slug: id,
  title: `Notes ${id}`,
  description: '',
  content,
  contentType: 'text/markdown',
  labels: [],
  metadata: {},
  sizeBytes: content.length,
  sha256: '0'.repeat(64),
  version: 1,
  versionCreatedAt: AT,
  createdAt: AT,
  updatedAt: AT,
});

const memory = (id: string, userId: string, text: string, projectName: string | null = null) => ({
  id,
  userId,
  text,
  projectName,
  metadata: {},
  createdAt: AT,
  updatedAt: AT,
  lastAccessedAt: null,
});

describe.each(DIALECTS)('SQL dialect (%s)', (name) => {
  let testDb: TestDatabase;
  let database: Database;
  let stores: Stores;

  beforeAll(async () => {
    testDb = await createTestDatabase(name);
    database = await openDatabase(testDb.url);
    await migrateToLatest(database);
    stores = createStores(database);
    await stores.users.insert(testUser('usr_a'), TEST_CHANGE);
    await stores.users.insert(testUser('usr_b'), TEST_CHANGE);
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  it('matches strict descendants of a project exactly, case and punctuation included', async () => {
    const projects = ['acme', 'acme/api', 'acme/api/v2', 'acme-web', 'acme0', 'acmex/api', 'Acme/api', 'acme.api'];
    for (const [i, project] of projects.entries()) {
      await stores.artifacts.insert(artifact(`art_path${i}`, 'usr_a', project, 'path probe'), TEST_CHANGE);
    }
    const rows = await database.db
      .selectFrom('artifacts')
      .select('project')
      .where('user_id', '=', 'usr_a')
      .where(database.dialect.descendantOf('artifacts.project', 'acme'))
      .orderBy('project')
      .execute();
    expect(rows.map((row) => row.project)).toEqual(['acme/api', 'acme/api/v2']);
  });

  it("finds artifacts by every word, within the user's own only", async () => {
    await stores.artifacts.insert(
      artifact('art_fts1', 'usr_a', 'docs', 'the deploy runbook for kubernetes'),
      TEST_CHANGE,
    );
    await stores.artifacts.insert(artifact('art_fts2', 'usr_a', 'docs', 'the deploy checklist'), TEST_CHANGE);
    await stores.artifacts.insert(
      artifact('art_fts3', 'usr_b', 'docs', 'the deploy runbook for kubernetes'),
      TEST_CHANGE,
    );
    const search = database.dialect.artifactSearch;
    const ids = async (userId: string, words: string[]) =>
      (
        await database.db
          .selectFrom('artifacts')
          .select('id')
          .where('user_id', '=', userId)
          .where(search.matchesAll(userId, words))
          .orderBy('id')
          .execute()
      ).map((row) => row.id);
    expect(await ids('usr_a', ['deploy'])).toEqual(['art_fts1', 'art_fts2']);
    expect(await ids('usr_a', ['deploy', 'kubernetes'])).toEqual(['art_fts1']);
    expect(await ids('usr_b', ['checklist'])).toEqual([]);

    // Removing an artifact takes it out of the index too.
    await stores.artifacts.delete('usr_a', 'art_fts1', TEST_CHANGE);
    expect(await ids('usr_a', ['kubernetes'])).toEqual([]);
  });

  it('finds memories by any word, scoped by user and project', async () => {
    await stores.memories.insert(
      memory('mem_1', 'usr_a', 'Deploys go through the staging cluster', 'acme/api'),
      TEST_CHANGE,
    );
    await stores.memories.insert(memory('mem_2', 'usr_a', 'Deploy on Fridays is forbidden', null), TEST_CHANGE);
    await stores.memories.insert(memory('mem_3', 'usr_a', 'Deploy notes of another project', 'other'), TEST_CHANGE);
    await stores.memories.insert(memory('mem_4', 'usr_b', 'Deploy everything', null), TEST_CHANGE);
    const search = database.dialect.memorySearch(database.db);
    const filter = () => sql<boolean>`true`;
    const found = async (userId: string, scope?: { project: string; ancestors: string[] }) => {
      const rows = await search.keywordCandidates(
        database.db,
        userId,
        { terms: ['deploi'], tags: [], scope, limit: 10 },
        filter,
      );
      const seqs = rows.map((row) => Number(row.seq));
      const ids = await stores.memories.findBySeq(userId, seqs);
      return ids.map((record) => record.id).sort();
    };
    expect(await found('usr_a')).toEqual(['mem_1', 'mem_2', 'mem_3']);
    expect(await found('usr_a', { project: 'acme', ancestors: [] })).toEqual(['mem_1', 'mem_2']);
    expect(await found('usr_b')).toEqual(['mem_4']);
    expect(await search.countKeywordMatches(database.db, 'usr_a', { terms: ['deploi'], tags: [] }, filter)).toBe(3);
  });

  it("keeps each user's term counts and statistics exact through creates, updates and deletes", async () => {
    const texts = {
      mem_s1: 'Rollback the deploy, then deploy again',
      mem_s2: 'Deploy freeze at month end',
      mem_s3: 'Canary first, rollback on errors',
    };
    await stores.users.insert(testUser('usr_s'), TEST_CHANGE);
    await stores.users.insert(testUser('usr_t'), TEST_CHANGE);
    for (const [id, text] of Object.entries(texts))
      await stores.memories.insert(memory(id, 'usr_s', text), TEST_CHANGE);
    await stores.memories.insert(memory('mem_s4', 'usr_t', 'Deploy deploy rollback'), TEST_CHANGE);
    await stores.memories.update('usr_s', 'mem_s2', { text: 'Freeze at quarter end, no canary' }, AT, TEST_CHANGE);
    await stores.memories.delete('usr_s', 'mem_s3', TEST_CHANGE);
    // What the counts must be: recounted from the memories the user still has.
    const kept = [texts.mem_s1, 'Freeze at quarter end, no canary'].map((text) => analyze(text));
    const remaining = kept.map((tokens) => new Set(tokens));
    const terms = [...new Set(remaining.flatMap((set) => [...set])), 'errors', 'canari', 'month', 'first'].map(
      (term) => analyze(term)[0] as string,
    );
    const stats = await stores.memories.termStatistics('usr_s', terms);
    expect(stats.documents).toBe(2);
    expect(stats.averageLength).toBe((kept[0]?.length ?? 0) / 2 + (kept[1]?.length ?? 0) / 2);
    expect(stats.frequencies).toEqual(terms.map((term) => remaining.filter((set) => set.has(term)).length));
    // Prefixes read the same counts, most frequent first, and only this user's terms.
    expect(await stores.memories.termsWithPrefix('usr_s', 'roll', 4, 64)).toEqual([{ term: 'rollback', documents: 1 }]);
    expect(await stores.memories.termsWithPrefix('usr_s', 'fre', 4, 64)).toEqual([{ term: 'freez', documents: 1 }]);
    expect(await stores.memories.termsWithPrefix('usr_t', 'roll', 4, 64)).toEqual([{ term: 'rollback', documents: 1 }]);
  });

  it('converts values read from either database into ones this database stores and reads back the same', async () => {
    const { storable } = database.dialect;
    const schema = { name: { required: false, default: 'x' } };
    await database.db
      .insertInto('prompts')
      .values({
        id: 'prm_conv',
        user_id: 'usr_a',
        slug: 'conversion',
        title: 'Conversion',
        description: '',
        content: 'Hello {{name}}',
        search_text: 'conversion',
        status: 'published',
        // What the other database's driver hands over: a boolean and parsed JSON.
        available_in_mcp: storable(true) as number,
        labels: storable(['a', 'b']) as string,
        variable_schema: storable(schema) as string,
        version: 1,
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    const record = await stores.prompts.findById('usr_a', 'prm_conv');
    expect(record).toMatchObject({ availableInMcp: true, labels: ['a', 'b'], variableSchema: schema });
    expect(storable(null)).toBeNull();
    expect(storable('text')).toBe('text');
  });

  it('classifies a real unique violation, and the stores turn it into a conflict', async () => {
    const error = await database.db
      .insertInto('users')
      .values({ ...rowOf(testUser('usr_a')) })
      .execute()
      .catch((caught: unknown) => caught);
    expect(database.dialect.isUniqueViolation(error)).toBe(true);
    expect(database.dialect.isUnavailable(error)).toBe(false);
    await expect(stores.users.insert(testUser('usr_a'), TEST_CHANGE)).rejects.toMatchObject({ code: 'conflict' });
  });
});

const rowOf = (record: ReturnType<typeof testUser>) => ({
  id: record.id,
  email: record.email,
  password_hash: record.passwordHash,
  tier: record.tier,
  rate_limit: record.rateLimit,
  is_admin: 0,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});

describe('an unreachable database surfaces as the domain UnavailableError', () => {
  it.runIf(DIALECTS.includes('postgres'))('PostgreSQL: a refused connection', async () => {
    // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
    const database = await openDatabase('postgres://postgres@127.0.0.1:1/cairn');
    try {
      const error = await database.ping().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnavailableError);
      expect((error as UnavailableError).message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
      expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await database.close();
    }
  });

  it('SQLite: a write while another connection holds the lock', async () => {
    const testDb = await createTestDatabase('sqlite');
    const database = await openDatabase(testDb.url);
    const { default: BetterSqlite3 } = await import('better-sqlite3');
    const holder = new BetterSqlite3(testDb.url.slice('sqlite:'.length));
    try {
      await migrateToLatest(database);
      // Fail at once instead of waiting out busy_timeout.
      await sql`pragma busy_timeout = 0`.execute(database.db);
      holder.exec('begin immediate');
      const error = await createStores(database)
        .users.insert(testUser('usr_locked'), TEST_CHANGE)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnavailableError);
      expect((error as Error).cause).toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      if (holder.inTransaction) holder.exec('rollback');
      holder.close();
      await database.close();
      await testDb.drop();
    }
  });
});
