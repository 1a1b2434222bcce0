import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/common/actor.js';
import { listMemoriesQuery } from '../../src/domain/memories/memory-schemas.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

/** Issue 18, item 4: duplicates on write, on both databases. */
describe.each(DIALECTS)('memory duplicates on write (%s)', (dialect) => {
  let t: TestServices;
  let alice: Actor;
  let bob: Actor;

  beforeAll(async () => {
    t = await createTestServices(dialect);
    alice = await t.actor();
    bob = await t.actor();
  });
  afterAll(() => t.close());

  const count = async (actor: Actor, project: string) =>
    (await t.services.memories.list(actor, listMemoriesQuery.parse({ project_name: project }))).memories.filter(
      (m) => m.project_name === project,
    ).length;

  it('answers an exact duplicate (normalised) with the stored memory, unchanged, and creates nothing', async () => {
    const first = await t.services.memories.create(alice, {
      text: 'Deploys go through the staging cluster first.',
      project_name: 'acme/ops',
      metadata: { priority: 'high', tags: ['deploy'] },
    });
    expect(first.deduped).toBeUndefined();
    const again = await t.services.memories.create(alice, {
      text: '  deploys GO through the\nstaging cluster first ',
      project_name: 'acme/ops',
      metadata: { priority: 'low', tags: ['other'] },
    });
    expect(again).toMatchObject({ memory_id: first.memory_id, deduped: true, text: first.text });
    expect(again.metadata).toEqual({ priority: 'high', tags: ['deploy'] });
    expect(again.possible_duplicates).toBeUndefined();
    expect(await count(alice, 'acme/ops')).toBe(1);
  });

  it('keeps other projects, global memories and other users apart', async () => {
    const text = 'Staging database is refreshed nightly';
    const ops = await t.services.memories.create(alice, { text, project_name: 'acme/ops2' });
    const child = await t.services.memories.create(alice, { text, project_name: 'acme/ops2/db' });
    const global = await t.services.memories.create(alice, { text });
    const bobs = await t.services.memories.create(bob, { text, project_name: 'acme/ops2' });
    const ids = [ops, child, global, bobs].map((m) => m.memory_id);
    expect(new Set(ids).size).toBe(4);
    for (const m of [ops, child, global, bobs]) expect(m.deduped).toBeUndefined();
    // Bob's memory is never named as a near duplicate of Alice's, nor the other way.
    expect(JSON.stringify(bobs.possible_duplicates ?? [])).not.toContain(ops.memory_id);
    const bobAgain = await t.services.memories.create(bob, { text, project_name: 'acme/ops2' });
    expect(bobAgain.memory_id).toBe(bobs.memory_id);
    const globalAgain = await t.services.memories.create(alice, { text: `${text}.` });
    expect(globalAgain.memory_id).toBe(global.memory_id);
  });

  it('creates a near duplicate and names the similar memory with its similarity', async () => {
    const original = await t.services.memories.create(alice, {
      text: 'Run the integration tests against PostgreSQL before merging a migration',
      project_name: 'acme/near',
    });
    await t.services.memories.create(alice, {
      text: 'Unrelated: the office closes at six on Fridays',
      project_name: 'acme/near',
    });
    const near = await t.services.memories.create(alice, {
      text: 'Always run the integration tests against PostgreSQL before merging a migration',
      project_name: 'acme/near',
    });
    expect(near.memory_id).not.toBe(original.memory_id);
    expect(near.deduped).toBeUndefined();
    expect(near.possible_duplicates).toEqual([{ memory_id: original.memory_id, similarity: expect.any(Number) }]);
    expect(near.possible_duplicates?.[0]?.similarity).toBeGreaterThanOrEqual(0.7);
    expect(near.possible_duplicates?.[0]?.similarity).toBeLessThan(1);

    // Another project's or another user's similar memory is not named; an unrelated one names nothing.
    const elsewhere = await t.services.memories.create(alice, {
      text: 'Always run the integration tests against PostgreSQL before merging a migration!',
      project_name: 'acme/other',
    });
    expect(elsewhere.possible_duplicates).toBeUndefined();
    const bobs = await t.services.memories.create(bob, {
      text: 'Run the integration tests against PostgreSQL before merging any migration',
      project_name: 'acme/near',
    });
    expect(bobs.possible_duplicates).toBeUndefined();
    const unrelated = await t.services.memories.create(alice, { text: 'Lunch is at noon', project_name: 'acme/near' });
    expect(unrelated.possible_duplicates).toBeUndefined();
  });

  it('finds near duplicates among global memories and of long texts, within its bounds', async () => {
    const owner = await t.actor();
    const words = Array.from({ length: 6000 }, (_, i) => `word${i % 3000}x${Math.floor(i / 3000)}`).join(' ');
    const long = await t.services.memories.create(owner, { text: words.slice(0, 50_000) });
    const similar = await t.services.memories.create(owner, { text: `${words.slice(0, 49_000)} tail` });
    expect(similar.possible_duplicates?.map((d) => d.memory_id)).toEqual([long.memory_id]);
  });

  it('dedupe: false creates the duplicate and skips the similarity check', async () => {
    const owner = await t.actor();
    const first = await t.services.memories.create(owner, { text: 'Use pnpm', project_name: 'p' });
    const second = await t.services.memories.create(owner, { text: 'Use pnpm', project_name: 'p' }, { dedupe: false });
    expect(second.memory_id).not.toBe(first.memory_id);
    expect(second.deduped).toBeUndefined();
    expect(second.possible_duplicates).toBeUndefined();
    // Duplicates already stored: the first stored is the one answered.
    const third = await t.services.memories.create(owner, { text: 'use pnpm.', project_name: 'p' });
    expect(third).toMatchObject({ memory_id: first.memory_id, deduped: true });
    expect(await count(owner, 'p')).toBe(2);
  });

  it('keys updated text: a create equal to an edited memory is its duplicate, the old text is free', async () => {
    const owner = await t.actor();
    const m = await t.services.memories.create(owner, { text: 'Old wording', project_name: 'q' });
    await t.services.memories.update(owner, m.memory_id, { text: 'New wording', project_name: 'r' });
    expect((await t.services.memories.create(owner, { text: 'new wording', project_name: 'r' })).memory_id).toBe(
      m.memory_id,
    );
    expect(
      (await t.services.memories.create(owner, { text: 'Old wording', project_name: 'q' })).deduped,
    ).toBeUndefined();
  });

  it('lets exactly one of concurrent identical creates insert', async () => {
    const owner = await t.actor();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => t.services.memories.create(owner, { text: 'Race me', project_name: 'race' })),
    );
    expect(new Set(results.map((r) => r.memory_id)).size).toBe(1);
    expect(results.filter((r) => r.deduped === undefined)).toHaveLength(1);
    expect(await count(owner, 'race')).toBe(1);
  });

  it('bundle import restores duplicates by id, stays idempotent, and a create then finds the first stored', async () => {
    const source = await t.actor();
    const first = await t.services.memories.create(source, { text: 'Kept twice', project_name: 'imp' });
    const second = await t.services.memories.create(
      source,
      { text: 'kept twice.', project_name: 'imp' },
      { dedupe: false },
    );
    const lines: string[] = [];
    for await (const line of t.services.bundles.export(source)) lines.push(JSON.stringify(line));
    const raw = async function* () {
      for (const [index, text] of lines.entries()) yield { number: index + 1, text };
    };
    const target = await t.actor();
    // Also an identical memory already in the target account: the import does not fold its rows into it.
    const local = await t.services.memories.create(target, { text: 'KEPT TWICE', project_name: 'imp' });
    const imported = await t.services.bundles.import(target, raw, { dryRun: false });
    expect(imported.created).toMatchObject({ memories: 2 });
    const again = await t.services.bundles.import(target, raw, { dryRun: false });
    expect(again.created).toMatchObject({ memories: 0 });
    expect(again.unchanged).toMatchObject({ memories: 2 });
    expect(await count(target, 'imp')).toBe(3);
    expect((await t.services.memories.create(target, { text: 'kept twice', project_name: 'imp' })).memory_id).toBe(
      local.memory_id,
    );
    // The source account's own duplicates, still both there.
    expect(first.memory_id).not.toBe(second.memory_id);
    expect(await count(source, 'imp')).toBe(2);
  });

  it('batch create does not dedupe: it creates every item as sent', async () => {
    const owner = await t.actor();
    await t.services.memories.create(owner, { text: 'Batch item', project_name: 'b' });
    const batch = await t.services.memoryBatches.create(owner, {
      memories: [
        { text: 'Batch item', project_name: 'b' },
        { text: 'Batch item', project_name: 'b' },
      ],
    });
    expect(batch.memories).toHaveLength(2);
    expect(await count(owner, 'b')).toBe(3);
    // Its rows are keyed all the same: a later single create finds them.
    expect((await t.services.memories.create(owner, { text: 'batch item', project_name: 'b' })).deduped).toBe(true);
  });
});
