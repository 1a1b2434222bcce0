import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listArtifactsQuery } from '../../src/domain/artifacts/artifact-schemas.js';
import type { Actor } from '../../src/domain/common/actor.js';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../../src/domain/common/errors.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

describe.each(DIALECTS)('artifact service over real stores (%s)', (dialect) => {
  let t: TestServices;
  let alice: Actor;
  let bob: Actor;

  beforeAll(async () => {
    t = await createTestServices(dialect);
    alice = await t.actor();
    bob = await t.actor();
  });
  afterAll(() => t.close());

  it('addresses artifacts by project/slug, per user', async () => {
    const created = await t.services.artifacts.create(alice, {
      project: 'web/app',
      slug: 'spec',
      title: 'Spec',
      content: '# Spec\n\nAll of it.',
    });
    expect(created.version).toBe(1);
    const read = await t.services.artifacts.get(alice, 'web/app', 'spec');
    expect(read.content).toBe('# Spec\n\nAll of it.');
    expect(read.sha256).toMatch(/^[0-9a-f]{64}$/);
    await expect(t.services.artifacts.get(bob, 'web/app', 'spec')).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.services.artifacts.delete(bob, 'web/app', 'spec')).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      t.services.artifacts.create(alice, { project: 'web/app', slug: 'spec', title: 'Again', content: 'x' }),
    ).rejects.toBeInstanceOf(ConflictError);
    // The same slug in another project is another artifact.
    await t.services.artifacts.create(alice, { project: 'web/api', slug: 'spec', title: 'API', content: 'y' });
  });

  it('versions content changes, honours If-Match, and keeps old versions readable', async () => {
    await t.services.artifacts.create(alice, { project: 'docs', slug: 'guide', title: 'Guide', content: 'v1' });
    const second = await t.services.artifacts.update(alice, 'docs', 'guide', { content: 'v2' }, '"1"');
    expect(second.version).toBe(2);
    await expect(t.services.artifacts.update(alice, 'docs', 'guide', { content: 'v3' }, '"1"')).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    const versions = await t.services.artifacts.versions(alice, 'docs', 'guide', { page: 1, per_page: 10 });
    expect(versions.total).toBe(2);
    expect((await t.services.artifacts.version(alice, 'docs', 'guide', 1)).content).toBe('v1');
    await expect(t.services.artifacts.version(bob, 'docs', 'guide', 1)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists one user’s artifacts of a project tree', async () => {
    const owner = await t.actor();
    await t.services.artifacts.create(owner, { project: 'p', slug: 'a', title: 'A', content: 'a' });
    await t.services.artifacts.create(owner, { project: 'p/sub', slug: 'b', title: 'B', content: 'b' });
    await t.services.artifacts.create(owner, { project: 'q', slug: 'c', title: 'C', content: 'c' });
    await t.services.artifacts.create(bob, { project: 'p', slug: 'z', title: 'Z', content: 'z' });
    const all = await t.services.artifacts.list(owner, listArtifactsQuery.parse({}));
    expect(all.total).toBe(3);
    const tree = await t.services.artifacts.list(owner, listArtifactsQuery.parse({ project: 'p' }));
    expect(tree.artifacts.map((a) => `${a.project}/${a.slug}`).sort()).toEqual(['p/a', 'p/sub/b']);
  });
});
