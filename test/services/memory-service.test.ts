import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/common/actor.js';
import { NotFoundError, ValidationError } from '../../src/domain/common/errors.js';
import { listMemoriesQuery } from '../../src/domain/memories/memory-schemas.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

const search = (words: string, extra: Record<string, unknown> = {}) => ({
  search: words,
  tags: [],
  offset: 0,
  limit: 10,
  withTotal: true,
  ...extra,
});

describe.each(DIALECTS)('memory service over real stores (%s)', (dialect) => {
  let t: TestServices;
  let alice: Actor;
  let bob: Actor;

  beforeAll(async () => {
    t = await createTestServices(dialect);
    alice = await t.actor();
    bob = await t.actor();
  });
  afterAll(() => t.close());

  it('creates, merges metadata on update, deletes, and keeps memories private', async () => {
    const created = await t.services.memories.create(alice, {
      text: 'Use tabs in Go code',
      project_name: 'backend',
      metadata: { category: 'standards', priority: 'high', tags: ['go'] },
    });
    const updated = await t.services.memories.update(alice, created.memory_id, {
      metadata: { priority: 'low', owner: 'ops' },
    });
    expect(updated.metadata).toEqual({ category: 'standards', priority: 'low', tags: ['go'], owner: 'ops' });
    await expect(t.services.memories.get(bob, created.memory_id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.services.memories.update(bob, created.memory_id, { text: 'mine' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(t.services.memories.delete(bob, created.memory_id)).rejects.toBeInstanceOf(NotFoundError);
    await t.services.memories.delete(alice, created.memory_id);
    await expect(t.services.memories.get(alice, created.memory_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('validates what it is given, whoever calls it', async () => {
    await expect(t.services.memories.create(alice, { text: '' })).rejects.toBeInstanceOf(ValidationError);
    await expect(
      t.services.memories.search(alice, search('x', { project_name: 'a'.repeat(5000) })),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('filters lists by project tree, category, priority and tag', async () => {
    const owner = await t.actor();
    const make = (text: string, project_name: string | null, metadata: Record<string, unknown>) =>
      t.services.memories.create(owner, { text, project_name, metadata });
    await make('one', 'shop', { category: 'spec', priority: 'high', tags: ['a'] });
    await make('two', 'shop/cart', { category: 'spec', priority: 'low', tags: ['b'] });
    await make('three', 'blog', { category: 'style', priority: 'high', tags: ['a'] });
    await make('four', null, { category: 'spec' });
    const list = async (query: Record<string, unknown>) =>
      (await t.services.memories.list(owner, listMemoriesQuery.parse(query))).memories.map((m) => m.text).sort();
    expect(await list({ project_name: 'shop' })).toEqual(['one', 'two']);
    expect(await list({ category: 'spec' })).toEqual(['four', 'one', 'two']);
    expect(await list({ priority: 'high' })).toEqual(['one', 'three']);
    expect(await list({ tag: 'a' })).toEqual(['one', 'three']);
    expect(await list({ project_name: 'shop', priority: 'low' })).toEqual(['two']);
  });

  it('ranks keyword matches in the project scope, the project first, and never another user’s', async () => {
    const owner = await t.actor();
    const make = (text: string, project_name: string | null) =>
      t.services.memories.create(owner, { text, project_name });
    await make('Deploys run through the release pipeline', null);
    await make('The release pipeline needs two approvals', 'web');
    await make('The release pipeline of the mobile app', 'mobile');
    await make('Lunch is at noon', 'web');
    await t.services.memories.create(bob, { text: 'release pipeline secrets of bob', project_name: 'web' });
    // The candidates for a project: the project, its descendants and ancestors, and global memories.
    const found = await t.services.memories.search(owner, search('release pipeline', { project_name: 'web' }));
    expect(found.total).toBe(2);
    expect(found.memories.map((m) => m.text)).toEqual([
      'The release pipeline needs two approvals',
      'Deploys run through the release pipeline',
    ]);
    const everywhere = await t.services.memories.search(owner, search('release pipeline'));
    expect(everywhere.total).toBe(3);
    expect(everywhere.memories.every((m) => !m.text.includes('bob'))).toBe(true);
  });
});
