import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/common/actor.js';
import {
  ConflictError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from '../../src/domain/common/errors.js';
import { listPromptsQuery } from '../../src/domain/prompts/prompt-schemas.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

describe.each(DIALECTS)('prompt service over real stores (%s)', (dialect) => {
  let t: TestServices;
  let alice: Actor;
  let bob: Actor;

  beforeAll(async () => {
    t = await createTestServices(dialect);
    alice = await t.actor();
    bob = await t.actor();
  });
  afterAll(() => t.close());

  it('creates, reads by slug and by id, and hides the prompt from another user', async () => {
    const created = await t.services.prompts.create(alice, {
      title: 'Code review',
      content: 'Review {{language}} code',
      slug: 'code-review',
      labels: ['Review', 'review', 'team'],
    });
    expect(created.slug).toBe('code-review');
    const bySlug = await t.services.prompts.get(alice, 'code-review');
    const byId = await t.services.prompts.get(alice, created.id);
    expect(byId).toEqual(bySlug);
    expect(bySlug.version).toBe(1);
    expect(bySlug.status).toBe('draft');
    await expect(t.services.prompts.get(bob, 'code-review')).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.services.prompts.get(bob, created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.services.prompts.delete(bob, created.id)).rejects.toBeInstanceOf(NotFoundError);
    // Bob may use the same slug: slugs are per user.
    const bobs = await t.services.prompts.create(bob, { title: 'Mine', content: 'x', slug: 'code-review' });
    expect(bobs.id).not.toBe(created.id);
  });

  it('refuses a slug the user already has, and generates a free one when none is given', async () => {
    await t.services.prompts.create(alice, { title: 'Taken', content: 'a', slug: 'taken' });
    await expect(
      t.services.prompts.create(alice, { title: 'Taken', content: 'b', slug: 'taken' }),
    ).rejects.toBeInstanceOf(ConflictError);
    const generated = await t.services.prompts.create(alice, { title: 'Taken', content: 'c' });
    expect(generated.slug).toMatch(/^taken-\d+$/);
  });

  it('keeps versions, restores an old one as a new version, and checks If-Match', async () => {
    await t.services.prompts.create(alice, { title: 'Doc', content: 'one', slug: 'doc' });
    const second = await t.services.prompts.update(alice, 'doc', { content: 'two' });
    expect(second.version).toBe(2);
    await expect(t.services.prompts.update(alice, 'doc', { content: 'three' }, '"1"')).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    const restored = await t.services.prompts.restore(alice, 'doc', { version: 1 }, '"2"');
    expect(restored.version).toBe(3);
    expect((await t.services.prompts.get(alice, 'doc')).content).toBe('one');
    const versions = await t.services.prompts.versions(alice, 'doc', { page: 1, per_page: 10 });
    expect(versions.total).toBe(3);
    expect((await t.services.prompts.version(alice, 'doc', 2)).content).toBe('two');
    await expect(t.services.prompts.versions(bob, 'doc', { page: 1, per_page: 10 })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('renders references and variables, and names a missing reference', async () => {
    await t.services.prompts.create(alice, { title: 'Tone', content: 'Be {{tone}}.', slug: 'tone' });
    await t.services.prompts.create(alice, { title: 'Mail', content: 'Write to {{name}}. @tone', slug: 'mail' });
    const rendered = await t.services.prompts.render(alice, 'mail', {
      variables: { name: 'Ada', tone: 'brief' },
    });
    expect(rendered.content).toBe('Write to Ada. Be brief.');
    expect(rendered.references_resolved).toEqual(['@tone']);
    await t.services.prompts.create(alice, { title: 'Broken', content: 'See @nowhere', slug: 'broken' });
    await expect(t.services.prompts.render(alice, 'broken', {})).rejects.toBeInstanceOf(ValidationError);
    // Another user's prompt is not a reference target.
    await t.services.prompts.create(bob, { title: 'Uses', content: 'x @tone', slug: 'uses-tone' });
    await expect(t.services.prompts.render(bob, 'uses-tone', {})).rejects.toBeInstanceOf(ValidationError);
  });

  it('shows marketplace-only keys published prompts alone', async () => {
    const owner = await t.actor();
    await t.services.prompts.create(owner, { title: 'Draft', content: 'd', slug: 'draft-one' });
    await t.services.prompts.create(owner, { title: 'Pub', content: 'p', slug: 'pub-one', status: 'published' });
    const marketplace: Actor = { ...owner, integrations: new Set(['marketplace']) };
    const list = await t.services.prompts.list(marketplace, listPromptsQuery.parse({}));
    expect(list.prompts.map((p) => p.slug)).toEqual(['pub-one']);
    await expect(t.services.prompts.get(marketplace, 'draft-one')).rejects.toBeInstanceOf(NotFoundError);
  });
});
