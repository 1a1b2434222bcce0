import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUPERSEDES } from '../../src/contract/index.js';
import type { Actor } from '../../src/domain/common/actor.js';
import { NotFoundError, ValidationError } from '../../src/domain/common/errors.js';
import { listMemoriesQuery } from '../../src/domain/memories/memory-schemas.js';
import { manualClock } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

/** Issue 18, items 1–3: expiry, supersede and pin, on both databases, through the services. */
describe.each(DIALECTS)('memory lifecycle (%s)', (dialect) => {
  let t: TestServices;
  let alice: Actor;
  let bob: Actor;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    t = await createTestServices(dialect, { MEMORY_SEARCH_CANDIDATES: '100' }, { clock });
    alice = await t.actor();
    bob = await t.actor();
  });
  afterAll(() => t.close());

  const list = async (actor: Actor, query: Record<string, unknown>) =>
    (await t.services.memories.list(actor, listMemoriesQuery.parse(query))).memories.map((m) => m.memory_id);
  const search = async (actor: Actor, project: string, words: string) =>
    (
      await t.services.memories.search(actor, { search: words, project_name: project, tags: [], offset: 0, limit: 50 })
    ).memories.map((m) => m.memory_id);
  const context = async (actor: Actor, project: string, task?: string) => {
    const block = await t.services.context.get(actor, {
      project_name: project,
      max_chars: 50_000,
      ...(task && { task }),
    });
    return {
      pinned: block.pinned_memories.map((m) => m.memory_id),
      all: [...block.pinned_memories, ...block.relevant_memories].map((m) => m.memory_id),
      reasons: Object.fromEntries(block.pinned_memories.map((m) => [m.memory_id, m.why.reason])),
    };
  };
  const rejects = async (promise: Promise<unknown>, type: typeof NotFoundError | typeof ValidationError) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(type);
    return error as Error & { details?: Record<string, string> };
  };

  it('hides an expired memory from search, lists and context, yet reads it by id and lists it on request', async () => {
    const project = 'exp/one';
    const soon = await t.services.memories.create(alice, {
      text: 'The release freeze on gateway routing lasts this week',
      project_name: project,
      ttl_seconds: 3600,
      metadata: { priority: 'high' },
    });
    const later = await t.services.memories.create(alice, {
      text: 'Gateway routing uses weighted clusters',
      project_name: project,
      expires_at: '2027-01-01T00:00:00+01:00',
    });
    expect(soon.expires_at).toBe('2026-11-21T11:00:00.000Z');
    expect(later.expires_at).toBe('2026-12-31T23:00:00.000Z');
    expect(await search(alice, project, 'gateway routing')).toEqual(
      expect.arrayContaining([soon.memory_id, later.memory_id]),
    );
    expect((await context(alice, project)).pinned).toContain(soon.memory_id);

    clock.advance(3_600_000); // exactly at the expiry: hidden from then on
    expect(await search(alice, project, 'gateway routing')).toEqual([later.memory_id]);
    expect(await search(alice, project, 'freeze')).toEqual([]);
    expect(await list(alice, { project_name: project })).toEqual([later.memory_id]);
    expect(await list(alice, { project_name: project, search: '' })).toEqual([later.memory_id]);
    expect((await context(alice, project, 'gateway routing freeze')).all).not.toContain(soon.memory_id);
    expect((await t.services.memories.get(alice, soon.memory_id)).text).toContain('freeze');
    expect(await list(alice, { project_name: project, include_expired: 'true' })).toEqual(
      expect.arrayContaining([soon.memory_id, later.memory_id]),
    );
    expect(await list(alice, { project_name: project, stale: 'true' })).toEqual([soon.memory_id]);
    const total = (await t.services.memories.list(alice, listMemoriesQuery.parse({ project_name: project }))).total;
    expect(total).toBe(1);

    // A new expiry brings it back; null removes the expiry.
    await t.services.memories.update(alice, soon.memory_id, { expires_at: '2026-12-01T00:00:00Z' });
    expect(await search(alice, project, 'freeze')).toEqual([soon.memory_id]);
    const cleared = await t.services.memories.update(alice, soon.memory_id, { expires_at: null });
    expect(cleared.expires_at).toBeNull();
    clock.set('2030-01-01T00:00:00.000Z');
    expect(await search(alice, project, 'gateway')).toEqual([soon.memory_id]);
    clock.set('2026-11-21T12:00:00.000Z');
  });

  it('validates expiry input', async () => {
    const bad = await rejects(
      t.services.memories.create(alice, { text: 'x1', expires_at: 'tomorrow' }),
      ValidationError,
    );
    expect(bad.details).toHaveProperty('expires_at');
    const both = await rejects(
      t.services.memories.create(alice, { text: 'x2', expires_at: '2027-01-01T00:00:00Z', ttl_seconds: 5 }),
      ValidationError,
    );
    expect(both.details).toHaveProperty('ttl_seconds');
    for (const ttl of [0, -1, 1.5, 315_360_001]) {
      const error = await rejects(t.services.memories.create(alice, { text: 'x3', ttl_seconds: ttl }), ValidationError);
      expect(error.details).toHaveProperty('ttl_seconds');
    }
    const noZone = await rejects(
      t.services.memories.create(alice, { text: 'x4', expires_at: '2027-01-01T00:00:00' }),
      ValidationError,
    );
    expect(noZone.details).toHaveProperty('expires_at');
  });

  it('supersedes: the older memory leaves search, lists and context, keeps its link, and comes back when it goes', async () => {
    const project = 'sup/one';
    const old = await t.services.memories.create(alice, {
      text: 'The billing service runs on Node 18',
      project_name: project,
      metadata: { priority: 'high' },
    });
    const older = await t.services.memories.create(alice, {
      text: 'Billing deploys on Fridays',
      project_name: project,
    });
    clock.advance(1000);
    const next = await t.services.memories.create(alice, {
      text: 'The billing service runs on Node 20 since November',
      project_name: project,
      metadata: { priority: 'high' },
      supersedes: [old.memory_id, older.memory_id],
    });
    expect(next.superseded_by).toBeNull();
    expect(await search(alice, project, 'billing')).toEqual([next.memory_id]);
    expect(await list(alice, { project_name: project })).toEqual([next.memory_id]);
    expect((await context(alice, project)).all).toEqual([next.memory_id]);
    const read = await t.services.memories.get(alice, old.memory_id);
    expect(read.superseded_by).toBe(next.memory_id);
    expect((await list(alice, { project_name: project, stale: '1' })).sort()).toEqual(
      [old.memory_id, older.memory_id].sort(),
    );

    // The newer memory's list replaces its links: `older` comes back, `old` stays replaced.
    await t.services.memories.update(alice, next.memory_id, { supersedes: [old.memory_id] });
    expect((await search(alice, project, 'billing')).sort()).toEqual([next.memory_id, older.memory_id].sort());
    expect((await t.services.memories.get(alice, older.memory_id)).superseded_by).toBeNull();
    // [] removes every link.
    await t.services.memories.update(alice, next.memory_id, { supersedes: [] });
    expect((await search(alice, project, 'billing')).length).toBe(3);
    // Deleting the newer memory removes its links too.
    await t.services.memories.update(alice, next.memory_id, { supersedes: [old.memory_id, older.memory_id] });
    expect(await search(alice, project, 'billing')).toEqual([next.memory_id]);
    await t.services.memories.delete(alice, next.memory_id);
    expect((await search(alice, project, 'billing')).sort()).toEqual([old.memory_id, older.memory_id].sort());
    expect((await t.services.memories.get(alice, old.memory_id)).superseded_by).toBeNull();
  });

  it('supersede chains, self-links and cycles', async () => {
    const project = 'sup/chain';
    const a = await t.services.memories.create(alice, { text: 'Cache TTL is 10 minutes', project_name: project });
    const b = await t.services.memories.create(alice, {
      text: 'Cache TTL is 5 minutes',
      project_name: project,
      supersedes: [a.memory_id],
    });
    const c = await t.services.memories.create(alice, {
      text: 'Cache TTL is 1 minute',
      project_name: project,
      supersedes: [b.memory_id],
    });
    expect(await search(alice, project, 'cache')).toEqual([c.memory_id]);
    expect((await t.services.memories.get(alice, a.memory_id)).superseded_by).toBe(b.memory_id);
    const self = await rejects(
      t.services.memories.update(alice, c.memory_id, { supersedes: [c.memory_id] }),
      ValidationError,
    );
    expect(self.details).toHaveProperty('supersedes');
    // b is superseded: it cannot take new links (a cycle c → b → c would hide both).
    const cycle = await rejects(
      t.services.memories.update(alice, b.memory_id, { supersedes: [a.memory_id, c.memory_id] }),
      ValidationError,
    );
    expect(cycle.details).toHaveProperty('supersedes');
    expect(await search(alice, project, 'cache')).toEqual([c.memory_id]);
    const tooMany = await rejects(
      t.services.memories.create(alice, {
        text: 'many',
        supersedes: Array.from({ length: MAX_SUPERSEDES + 1 }, (_, i) => `${a.memory_id.slice(0, -2)}${10 + i}`),
      }),
      ValidationError,
    );
    expect(tooMany.details).toHaveProperty('supersedes');
    const malformed = await rejects(
      t.services.memories.create(alice, { text: 'malformed', supersedes: ['prm_nope'] }),
      ValidationError,
    );
    expect(malformed.details).toHaveProperty('supersedes.0');
  });

  it("a supersedes naming another user's memory is a 404, leaks nothing and writes nothing", async () => {
    const project = 'sup/iso';
    const mine = await t.services.memories.create(alice, { text: 'Alice: the queue is SQS', project_name: project });
    const bobs = await t.services.memories.create(bob, { text: 'Bob: the queue is Kafka', project_name: project });
    const missing = `mem_${'0'.repeat(26)}`;
    for (const foreign of [bobs.memory_id, missing]) {
      const error = await rejects(
        t.services.memories.create(alice, {
          text: 'Alice: the queue is now RabbitMQ',
          project_name: project,
          supersedes: [mine.memory_id, foreign],
        }),
        NotFoundError,
      );
      expect(error.message).toBe(`Memory ${foreign} not found`);
      const onUpdate = await rejects(
        t.services.memories.update(alice, mine.memory_id, { text: 'changed', supersedes: [foreign] }),
        NotFoundError,
      );
      expect(onUpdate.message).toBe(`Memory ${foreign} not found`);
    }
    // Nothing written: no new memory, Alice's memory unchanged and unlinked, Bob's untouched.
    expect(await list(alice, { project_name: project, include_expired: 'true' })).toEqual([mine.memory_id]);
    const after = await t.services.memories.get(alice, mine.memory_id);
    expect(after).toMatchObject({ text: mine.text, superseded_by: null });
    expect(await t.services.memories.get(bob, bobs.memory_id)).toMatchObject({ superseded_by: null, text: bobs.text });
    expect(await search(bob, project, 'queue')).toEqual([bobs.memory_id]);
    // Bob cannot read or release Alice's link either.
    await t.services.memories.create(alice, {
      text: 'Alice: the queue is SNS',
      project_name: project,
      supersedes: [mine.memory_id],
    });
    await rejects(t.services.memories.update(bob, mine.memory_id, { supersedes: [] }), NotFoundError);
    expect((await t.services.memories.get(alice, mine.memory_id)).superseded_by).not.toBeNull();
  });

  it('a duplicate only matches a visible memory; a create with supersedes links in the same write', async () => {
    const project = 'dup/life';
    const first = await t.services.memories.create(alice, {
      text: 'Staging resets every Monday',
      project_name: project,
      ttl_seconds: 60,
    });
    clock.advance(60_000);
    const again = await t.services.memories.create(alice, {
      text: 'Staging resets every Monday.',
      project_name: project,
    });
    expect(again.deduped).toBeUndefined();
    expect(again.memory_id).not.toBe(first.memory_id);
    // Replacing a memory by an identical text: the superseded one is not the duplicate answered.
    const replaced = await t.services.memories.create(alice, {
      text: 'staging resets every monday',
      project_name: project,
      supersedes: [again.memory_id],
    });
    expect(replaced.deduped).toBeUndefined();
    expect((await t.services.memories.get(alice, again.memory_id)).superseded_by).toBe(replaced.memory_id);
    expect(await list(alice, { project_name: project })).toEqual([replaced.memory_id]);
  });

  it('pinned: always in the context of its project, first, never expiring while pinned', async () => {
    const project = 'pin/one';
    const pinned = await t.services.memories.create(alice, {
      text: 'Never force-push to main',
      project_name: project,
      metadata: { priority: 'low' },
      pinned: true,
      ttl_seconds: 60,
    });
    const high = await t.services.memories.create(alice, {
      text: 'Reviews need two approvals',
      project_name: project,
      metadata: { priority: 'high' },
    });
    for (let i = 0; i < 25; i++) {
      await t.services.memories.create(alice, { text: `Filler note number ${i} about builds`, project_name: project });
    }
    clock.advance(120_000); // past the expiry: pinned memories never expire
    const block = await context(alice, project, 'builds filler note');
    expect(block.pinned[0]).toBe(pinned.memory_id);
    expect(block.pinned).toContain(high.memory_id);
    expect(block.reasons[pinned.memory_id]).toMatch(/^pinned/);
    expect((await context(alice, `${project}/sub`)).pinned[0]).toBe(pinned.memory_id);
    expect(await search(alice, project, 'force push')).toEqual([pinned.memory_id]);
    expect(await context(bob, project)).toMatchObject({ all: [] });
    // Unpinned, its expiry applies again.
    await t.services.memories.update(alice, pinned.memory_id, { pinned: false });
    expect((await context(alice, project)).all).not.toContain(pinned.memory_id);
    expect(await search(alice, project, 'force push')).toEqual([]);
    await t.services.memories.update(alice, pinned.memory_id, { pinned: true });
    expect(await search(alice, project, 'force push')).toEqual([pinned.memory_id]);
    expect(await list(alice, { project_name: project, stale: 'true' })).toEqual([]);
  });

  it('bundles carry expires_at, pinned and superseded_by; import restores them (links to the same account)', async () => {
    const owner = await t.actor();
    const old = await t.services.memories.create(owner, { text: 'Bundle: logs kept 7 days', project_name: 'bun' });
    const pin = await t.services.memories.create(owner, {
      text: 'Bundle: pinned rule',
      project_name: 'bun',
      pinned: true,
      expires_at: '2026-11-21T00:00:00Z',
    });
    const newer = await t.services.memories.create(owner, {
      text: 'Bundle: logs kept 30 days',
      project_name: 'bun',
      supersedes: [old.memory_id],
      expires_at: '2099-01-01T00:00:00Z',
    });
    const lines: string[] = [];
    for await (const line of t.services.bundles.export(owner)) lines.push(JSON.stringify(line));
    const byId = new Map(lines.map((l) => JSON.parse(l)).map((l) => [l.memory_id, l]));
    expect(byId.get(old.memory_id)).toMatchObject({ superseded_by: newer.memory_id, pinned: false, expires_at: null });
    expect(byId.get(pin.memory_id)).toMatchObject({ pinned: true, expires_at: '2026-11-21T00:00:00.000Z' });
    expect(byId.get(newer.memory_id)).toMatchObject({ superseded_by: null, expires_at: '2099-01-01T00:00:00.000Z' });

    // Into another account: the ids are taken, so each memory gets a derived id, and the link follows it.
    const carol = await t.actor();
    const raw = async function* () {
      for (const [index, text] of lines.entries()) yield { number: index + 1, text };
    };
    const first = await t.services.bundles.import(carol, raw, { dryRun: false });
    expect(first.created.memories).toBe(3);
    const all = (
      await t.services.memories.list(carol, listMemoriesQuery.parse({ project_name: 'bun', include_expired: 'true' }))
    ).memories;
    const copy = (text: string) => all.find((m) => m.text === text);
    expect(copy(old.text)?.superseded_by).toBe(copy(newer.text)?.memory_id);
    expect(copy(pin.text)).toMatchObject({ pinned: true, expires_at: '2026-11-21T00:00:00.000Z' });
    const visible = (await t.services.memories.list(carol, listMemoriesQuery.parse({ project_name: 'bun' }))).memories;
    expect(visible.map((m) => m.text).sort()).toEqual([newer.text, pin.text].sort());
    // Importing again changes nothing.
    const again = await t.services.bundles.import(carol, raw, { dryRun: false });
    expect(again.unchanged.memories).toBe(3);
    // Alice's link never points into Carol's account, nor Carol's into Alice's.
    expect((await t.services.memories.get(owner, old.memory_id)).superseded_by).toBe(newer.memory_id);
  });

  it('hidden memories are filtered in the index query: more hidden matches than the candidate bound never empty a page', async () => {
    // The candidate bound is 100 here (MEMORY_SEARCH_CANDIDATES below): 160 newer hidden matches would fill
    // it twice over if hiding were a filter after the fetch, and the 3 older visible ones would be lost.
    const project = 'bound/hidden';
    const visible: string[] = [];
    for (let i = 0; i < 3; i++) {
      visible.push(
        (await t.services.memories.create(alice, { text: `Zebra crossing rule number ${i}`, project_name: project }))
          .memory_id,
      );
    }
    clock.advance(1000);
    for (const size of [100, 60]) {
      await t.services.memoryBatches.create(alice, {
        memories: Array.from({ length: size }, (_, i) => ({
          text: `Zebra stripes note ${size}-${i}`,
          project_name: project,
          ttl_seconds: 10,
        })),
      });
    }
    clock.advance(10_000);
    expect((await search(alice, project, 'zebra')).sort()).toEqual([...visible].sort());
    const ranked = await t.services.memories.list(
      alice,
      listMemoriesQuery.parse({ project_name: project, search: 'zebra' }),
    );
    expect(ranked.total).toBe(3);
    const onlyWord = await t.services.memories.list(alice, listMemoriesQuery.parse({ search: 'zebra' }));
    expect(onlyWord.total).toBe(3);
    expect((await list(alice, { project_name: project, search: '' })).sort()).toEqual([...visible].sort());
    expect(
      (await t.services.memories.list(alice, listMemoriesQuery.parse({ project_name: project, stale: 'true' }))).total,
    ).toBe(160);
    // More visible matches than the bound: the totals are counted, hidden ones left out of the count too
    // (SQLite: the one-word count from the index minus the hidden holders; the scoped count in the index walk).
    for (const from of [0, 55]) {
      await t.services.memoryBatches.create(alice, {
        memories: Array.from({ length: 55 }, (_, i) => ({ text: `Zebra visible ${from + i}`, project_name: project })),
      });
    }
    const word = async (query: Record<string, string>) =>
      (await t.services.memories.list(alice, listMemoriesQuery.parse(query))).total;
    expect(await word({ search: 'zebra' })).toBe(113);
    expect(await word({ search: 'zebra', project_name: project })).toBe(113);
    expect(await word({ search: 'zebra', include_expired: 'true' })).toBe(273);
  });

  it('a pinned memory ranks first among equals', async () => {
    const project = 'pin/tie';
    // Same text, project, priority and time: without the pin the newer row (plain) would come first.
    const pin = await t.services.memories.create(alice, { text: 'Tie alpha', project_name: project, pinned: true });
    const plain = await t.services.memories.create(
      alice,
      { text: 'Tie alpha', project_name: project },
      { dedupe: false },
    );
    expect(await search(alice, project, 'tie alpha')).toEqual([pin.memory_id, plain.memory_id]);
    await t.services.memories.update(alice, pin.memory_id, { pinned: false });
    expect(await search(alice, project, 'tie alpha')).toEqual([plain.memory_id, pin.memory_id]);
  });
});
