import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/common/actor.js';
import type { RankedMemory } from '../../src/domain/memories/memory-schemas.js';
import { createEmbeddingStore } from '../../src/storage/embedding-store.js';
import { DIALECTS } from '../helpers/databases.js';
import { TestEmbedder } from '../helpers/embedder.js';
import { createTestServices, type TestServices } from '../helpers/services.js';
import { createVectorTestServices, pgvectorOffered, VECTOR_VARIANTS } from '../helpers/vectors.js';

const query = (words: string, extra: Record<string, unknown> = {}) => ({
  search: words,
  tags: [],
  offset: 0,
  limit: 10,
  withTotal: true,
  explain: true,
  ...extra,
});

const PIPELINE = 'Releases go out through the blue/green pipeline';
// The keyword search's thesaurus already knows ship ↔ release: this question shares no word or synonym.
const QUESTION = 'how is new code made live?';

function embeddingsOf(t: TestServices) {
  const embeddings = t.container.embeddings;
  if (!embeddings) throw new Error('embeddings are not configured');
  return embeddings;
}

const ids = (memories: RankedMemory[]) => memories.map((memory) => memory.memory_id);

describe.each(VECTOR_VARIANTS)('hybrid memory search with a real embeddings server (%s)', (variant) => {
  let embedder: TestEmbedder;
  let t: TestServices;
  let alice: Actor;
  let bob: Actor;

  beforeAll(async () => {
    embedder = await TestEmbedder.start();
    t = await createVectorTestServices(variant, embedder.env());
    alice = await t.actor();
    bob = await t.actor();
  });
  afterAll(async () => {
    await t.close();
    await embedder.close();
  });

  const idle = () => embeddingsOf(t).indexer.idle();

  it('finds a memory that shares no keyword with the question when its vector is closest', async () => {
    const pipeline = await t.services.memories.create(alice, { text: PIPELINE });
    await t.services.memories.create(alice, { text: 'Indentation uses tabs in every TypeScript file' });
    await t.services.memories.create(alice, { text: 'The team eats lunch together on Fridays' });
    const wordy = await t.services.memories.create(alice, { text: 'Live code reviews happen on Mondays' });
    await idle();

    const found = await t.services.memories.search(alice, query(QUESTION));
    expect(ids(found.memories)).toContain(pipeline.memory_id);
    expect(ids(found.memories)).toContain(wordy.memory_id); // the keyword match stays
    const hit = found.memories.find((memory) => memory.memory_id === pipeline.memory_id);
    expect(hit?.score_parts).toMatchObject({ keyword: 0, vector_search: 'used' });
    expect(hit?.score_parts?.similarity).toBeGreaterThan(0.35);
    expect(hit?.score_parts?.weights.semantic).toBe(0.35);
    // Unrelated memories (no keyword, far vectors) stay out.
    expect(found.memories).toHaveLength(2);
    expect(found.total).toBe(2);
  });

  it('re-embeds a memory when its text changes', async () => {
    const memory = await t.services.memories.create(alice, { text: 'Deploys to production wait for a green build' });
    await idle();
    expect(ids((await t.services.memories.search(alice, query('rollout'))).memories)).toContain(memory.memory_id);

    await t.services.memories.update(alice, memory.memory_id, { text: 'Dinner orders go to the front desk' });
    await idle();
    expect(ids((await t.services.memories.search(alice, query('rollout'))).memories)).not.toContain(memory.memory_id);
    const meal = await t.services.memories.search(alice, query('where is breakfast'));
    expect(ids(meal.memories)).toContain(memory.memory_id);
    // A change of metadata alone keeps the vector (no provider call).
    const before = embedder.requests;
    await t.services.memories.update(alice, memory.memory_id, { metadata: { priority: 'high' } });
    await idle();
    expect(embedder.requests).toBe(before);
    const counts = await embeddingsOf(t).indexer.status(alice.userId);
    expect(counts.counts).toMatchObject({ missing: 0, stale: 0, failed: 0 });
  });

  it('falls back to keywords while the provider is down, says so in explain, and backfill catches up', async () => {
    embedder.down = true;
    try {
      const rollout = await t.services.memories.create(alice, { text: 'Rollouts happen in canary stages' });
      const keyword = await t.services.memories.create(alice, { text: 'Canary birds were kept in mines' });
      await idle();
      const status = await embeddingsOf(t).indexer.status(alice.userId);
      expect(status.counts.failed).toBe(2);

      const found = await t.services.memories.search(alice, query('ship canary'));
      expect(ids(found.memories)).toEqual(expect.arrayContaining([rollout.memory_id, keyword.memory_id]));
      for (const memory of found.memories) expect(memory.score_parts?.vector_search).toBe('unavailable');
      // Keyword ranking only: nothing was found by a vector. (A query asked before is answered from the
      // process's cache of query vectors, so this one is new.)
      const paraphrase = await t.services.memories.search(alice, query('how is fresh code made live?'));
      expect(paraphrase.memories[0]?.score_parts?.vector_search).toBe('unavailable');
      expect(paraphrase.memories.every((memory) => (memory.score_parts?.keyword ?? 0) > 0)).toBe(true);

      embedder.down = false;
      const progress = await embeddingsOf(t).indexer.backfill({ userId: alice.userId });
      expect(progress).toMatchObject({ total: 2, done: 2, embedded: 2, failed: 0 });
      expect((await embeddingsOf(t).indexer.status(alice.userId)).counts).toMatchObject({ failed: 0, missing: 0 });
      const after = await t.services.memories.search(alice, query(QUESTION));
      expect(ids(after.memories)).toContain(rollout.memory_id);
      expect(after.memories[0]?.score_parts?.vector_search).toBe('used');
    } finally {
      embedder.down = false;
    }
  });

  it('never returns another user’s memory from vector search', async () => {
    const bobs = await t.services.memories.create(bob, { text: 'Our releases ship through the rollout pipeline' });
    await idle();
    const found = await t.services.memories.search(alice, query(QUESTION));
    expect(ids(found.memories)).not.toContain(bobs.memory_id);
    expect(ids((await t.services.memories.search(bob, query(QUESTION))).memories)).toEqual([bobs.memory_id]);

    // The store itself: a user with no vectors gets nothing back, however close another user's are.
    const carol = await t.actor();
    const store = createEmbeddingStore(t.container.database.db, t.container.database.dialect, {
      vectors: await t.container.database.vectorSearch(),
      scanLimit: 1000,
    });
    const { embedText } = await import('../helpers/embedder.js');
    const vector = Float32Array.from(embedText(QUESTION, 64));
    expect(await store.nearest(carol.userId, { vector, model: 'hash-64', limit: 50, filter: { tags: [] } })).toEqual(
      [],
    );
    const bobNear = await store.nearest(bob.userId, { vector, model: 'hash-64', limit: 50, filter: { tags: [] } });
    expect(bobNear).toHaveLength(1);
  });

  it('embeds the memories an import wrote, in the background', async () => {
    const source = await t.actor();
    await t.services.memories.create(source, { text: 'Launch day checklist lives in the wiki' });
    const lines: string[] = [];
    for await (const line of t.services.bundles.export(source)) lines.push(JSON.stringify(line));
    const target = await t.actor();
    await t.services.bundles.import(
      target,
      () =>
        (async function* () {
          for (const [index, text] of lines.entries()) yield { number: index + 1, text };
        })(),
      { dryRun: false },
    );
    const indexer = embeddingsOf(t).indexer;
    for (let i = 0; i < 200 && (await indexer.status(target.userId)).counts.embedded < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await indexer.status(target.userId)).counts).toMatchObject({ memories: 1, embedded: 1, missing: 0 });
  });

  it('keeps project scope and filters on vector candidates, and leaves the context block to the same ranking', async () => {
    const scoped = await t.services.memories.create(bob, {
      text: 'Launches go live after the smoke checks',
      project_name: 'acme/web',
      metadata: { category: 'process' },
    });
    await idle();
    const inOther = await t.services.memories.search(bob, query(QUESTION, { project_name: 'other' }));
    expect(ids(inOther.memories)).not.toContain(scoped.memory_id);
    const inProject = await t.services.memories.search(bob, query(QUESTION, { project_name: 'acme' }));
    expect(ids(inProject.memories)).toContain(scoped.memory_id);
    const filtered = await t.services.memories.search(bob, query(QUESTION, { category: 'nope' }));
    expect(filtered.memories).toEqual([]);
    const block = await t.services.context.get(bob, { task: QUESTION, project_name: 'acme/web', max_chars: 20_000 });
    expect(JSON.stringify(block.relevant_memories)).toContain(scoped.memory_id);
  });
});

describe.each(DIALECTS)('a change of embedding model (%s)', (dialect) => {
  let embedder: TestEmbedder;
  let first: TestServices | undefined;

  beforeAll(async () => {
    embedder = await TestEmbedder.start();
  });
  afterAll(async () => {
    await first?.database.drop();
    await embedder.close();
  });

  it('finds the old vectors stale and re-embeds them, never mixing spaces', async () => {
    first = await createTestServices(dialect, embedder.env('hash-64'));
    const alice = await first.actor();
    const memory = await first.services.memories.create(alice, { text: PIPELINE });
    await first.services.memories.create(alice, { text: 'Tabs for indentation' });
    await embeddingsOf(first).indexer.idle();
    expect((await embeddingsOf(first).indexer.status()).counts).toMatchObject({ embedded: 2, stale: 0 });
    await first.container.close();

    const { loadConfig } = await import('../../src/config.js');
    const { createContainer } = await import('../../src/container.js');
    const second = await createContainer(
      loadConfig({ DATABASE_URL: first.database.url, LOG_LEVEL: 'silent', ...embedder.env('hash-32') }),
    );
    try {
      const indexer = second.embeddings?.indexer;
      if (!indexer) throw new Error('embeddings are not configured');
      const status = await indexer.status();
      expect(status.space).toEqual({ model: 'hash-32', dimensions: 32 });
      expect(status.counts).toMatchObject({ embedded: 0, stale: 2 });
      // Before re-embedding, the old 64-dimension vectors are not compared with 32-dimension queries.
      const before = await second.services.memories.search(alice, query(QUESTION));
      expect(ids(before.memories)).not.toContain(memory.memory_id);

      // What `cairn serve` does at start: detect the space and re-embed the stale vectors in the background.
      second.embeddings?.startBackground();
      for (let i = 0; i < 200 && (await indexer.status()).counts.embedded < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect((await indexer.backfill()).done).toBe(0);
      expect((await indexer.status()).counts).toMatchObject({ embedded: 2, stale: 0, missing: 0, failed: 0 });
      const after = await second.services.memories.search(alice, query(QUESTION));
      expect(ids(after.memories)).toContain(memory.memory_id);
    } finally {
      await second.close();
    }
  });
});

describe.each(VECTOR_VARIANTS)('vector store edge cases (%s)', (variant) => {
  let embedder: TestEmbedder;
  let t: TestServices;
  beforeAll(async () => {
    embedder = await TestEmbedder.start();
    t = await createVectorTestServices(variant, embedder.env('hash-4'));
  });
  afterAll(async () => {
    await t.close();
    await embedder.close();
  });

  const space = { model: 'hash-4', dimensions: 4 };
  const store = async (scanLimit: number) =>
    createEmbeddingStore(t.container.database.db, t.container.database.dialect, {
      vectors: await t.container.database.vectorSearch(),
      scanLimit,
    });
  /**
   * Memories of `actor` whose vectors are then set to `vectors` (in creation order); their seqs. The
   * indexer's own vectors are written first (idle), so nothing in the background overwrites these.
   */
  async function withVectors(actor: Actor, vectors: number[][]): Promise<number[]> {
    const created = [];
    for (const [i] of vectors.entries()) created.push(await t.services.memories.create(actor, { text: `note ${i}` }));
    await embeddingsOf(t).indexer.idle();
    const rows = await t.container.database.db
      .selectFrom('memories')
      .select(['id', 'seq'])
      .where(
        'id',
        'in',
        created.map((memory) => memory.memory_id),
      )
      .execute();
    const seqs = created.map((memory) => Number(rows.find((row) => row.id === memory.memory_id)?.seq));
    await (await store(100)).save(
      seqs.map((seq, i) => ({
        seq,
        userId: actor.userId,
        textHash: 'h',
        sourceUpdatedAt: 'x',
        space,
        vector: Float32Array.from(vectors[i] as number[]),
      })),
    );
    return seqs;
  }

  it('compares vectors the way the database holds them', async () => {
    const vectors = await t.container.database.vectorSearch();
    const expected =
      variant === 'sqlite'
        ? { method: 'sqlite-vec', exhaustive: true }
        : variant === 'postgres' && (await pgvectorOffered(t.database.url))
          ? { method: 'pgvector', exhaustive: true }
          : { method: 'bytea', exhaustive: false };
    expect({ method: vectors.method, exhaustive: vectors.exhaustive }).toEqual(expected);
  });

  it('never takes a zero vector for a perfect match', async () => {
    const alice = await t.actor();
    const [zero, real] = (await withVectors(alice, [
      [0, 0, 0, 0],
      [1, 0, 0, 0],
    ])) as [number, number];
    const query = Float32Array.from([1, 0, 0, 0]);
    const near = await (await store(100)).nearest(alice.userId, {
      vector: query,
      model: 'hash-4',
      limit: 10,
      filter: { tags: [] },
    });
    expect(near.map((row) => [row.seq, row.similarity])).toEqual([[real, 1]]);
    const measured = await (await store(100)).similarities(alice.userId, 'hash-4', query, [zero, real]);
    expect([...measured]).toEqual([[real, 1]]);
  });

  it('records a vector the database cannot hold as a failure, keeping the rest of the batch', async () => {
    const alice = await t.actor();
    // Float32 has no room for 1e39: it becomes Infinity, which pgvector refuses.
    const [huge, fine] = (await withVectors(alice, [
      [1e39, 0, 0, 0],
      [1, 0, 0, 0],
    ])) as [number, number];
    const query = Float32Array.from([1, 0, 0, 0]);
    const near = await (await store(100)).nearest(alice.userId, {
      vector: query,
      model: 'hash-4',
      limit: 10,
      filter: { tags: [] },
    });
    expect(near.map((row) => row.seq)).toEqual([fine]);
    const row = await t.container.database.db
      .selectFrom('memory_embeddings')
      .select(['vector', 'error'])
      .where('memory_seq', '=', huge)
      .executeTakeFirstOrThrow();
    if ((await t.container.database.vectorSearch()).method === 'pgvector') {
      expect(row).toEqual({ vector: null, error: 'this database cannot store the vector (pgvector)' });
    } else {
      expect(row.vector).not.toBeNull(); // float32 bytes hold Infinity; it has no cosine, so it is never near
    }
  });

  it('finds the closest vector behind more than EMBEDDINGS_SCAN_LIMIT newer ones where the search is exhaustive, and only the owner’s', async () => {
    const alice = await t.actor();
    const bob = await t.actor();
    const scanLimit = 100; // the setting's minimum
    const [close, ...newer] = (await withVectors(alice, [
      [1, 0.05, 0, 0],
      ...Array.from({ length: scanLimit + 20 }, (_, i) => [0, 1, i / 1000, 0.5]),
    ])) as [number, ...number[]];
    const [bobs] = (await withVectors(bob, [[1, 0, 0, 0]])) as [number];
    const query = Float32Array.from([1, 0, 0, 0]);
    const searched = await store(scanLimit);
    const near = await searched.nearest(alice.userId, {
      vector: query,
      model: 'hash-4',
      limit: 3,
      filter: { tags: [] },
    });
    const seqs = near.map((row) => row.seq);
    expect(seqs).not.toContain(bobs);
    if ((await t.container.database.vectorSearch()).exhaustive) {
      expect(seqs[0]).toBe(close);
      expect(near[0]?.similarity).toBeCloseTo(1 / Math.hypot(1, 0.05), 5);
    } else {
      // The bytea fallback compares the newest EMBEDDINGS_SCAN_LIMIT only (docs/memory-search.md).
      expect(seqs).not.toContain(close);
      expect(newer).toEqual(expect.arrayContaining(seqs));
    }
    // A keyword candidate's similarity is measured wherever it is; another user's is never.
    const measured = await searched.similarities(alice.userId, 'hash-4', query, [close, bobs]);
    expect([...measured.keys()]).toEqual([close]);
    expect(measured.get(close)).toBeCloseTo(1 / Math.hypot(1, 0.05), 5);
    expect(
      await searched.nearest(bob.userId, { vector: query, model: 'hash-4', limit: 3, filter: { tags: [] } }),
    ).toEqual([expect.objectContaining({ seq: bobs })]);
  });
});
