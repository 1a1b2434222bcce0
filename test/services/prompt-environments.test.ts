import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROMPT_ENVIRONMENTS } from '../../src/contract/index.js';
import type { Actor } from '../../src/domain/common/actor.js';
import { NotFoundError, ValidationError } from '../../src/domain/common/errors.js';
import { EnvironmentNotSetError } from '../../src/domain/prompts/prompt-environments.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

describe.each(DIALECTS)('prompt environments in the service, over real stores (%s)', (dialect) => {
  let t: TestServices;
  let alice: Actor;
  let seq = 0;

  const exportLines = async (actor: Actor) => {
    const lines: string[] = [];
    for await (const line of t.services.bundles.export(actor)) lines.push(JSON.stringify(line));
    return lines;
  };
  const asRaw = (lines: string[]) =>
    async function* () {
      for (const [index, text] of lines.entries()) yield { number: index + 1, text };
    };
  /** A prompt of `actor` with versions 1–3 (`c1`…`c3`). */
  const threeVersions = async (actor: Actor) => {
    const slug = `svc-env-${++seq}`;
    await t.services.prompts.create(actor, { title: 'T', content: 'c1', slug });
    await t.services.prompts.update(actor, slug, { content: 'c2' });
    await t.services.prompts.update(actor, slug, { content: 'c3' });
    return slug;
  };

  beforeAll(async () => {
    t = await createTestServices(dialect);
    alice = await t.actor();
  });
  afterAll(() => t.close());

  it('answers reads through a moved pointer at once, from the cache or not', async () => {
    const slug = await threeVersions(alice);
    await t.services.prompts.setEnvironment(alice, slug, 'production', { version: 1 });
    // Read twice (the second from the fresh cache where the database offers a change stamp).
    for (let i = 0; i < 2; i++) {
      expect((await t.services.prompts.get(alice, slug, 'production')).content).toBe('c1');
      expect((await t.services.prompts.get(alice, slug)).content).toBe('c3');
    }
    await t.services.prompts.setEnvironment(alice, slug, 'production', { version: 2 });
    expect((await t.services.prompts.get(alice, slug, 'production')).content).toBe('c2');
    await t.services.prompts.removeEnvironment(alice, slug, 'production');
    await expect(t.services.prompts.get(alice, slug, 'production')).rejects.toBeInstanceOf(EnvironmentNotSetError);
  });

  it('validates whoever calls: names, versions, the bound, and unknown prompts', async () => {
    const slug = await threeVersions(alice);
    await expect(t.services.prompts.setEnvironment(alice, slug, 'Bad Name', { version: 1 })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(t.services.prompts.setEnvironment(alice, slug, 'prod', { version: 4 })).rejects.toMatchObject({
      details: { version: `Prompt '${slug}' has no version 4` },
    });
    await expect(t.services.prompts.setEnvironment(alice, 'nope', 'prod', { version: 1 })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    // Concurrent writers of different names cannot pass the bound together.
    const results = await Promise.allSettled(
      Array.from({ length: MAX_PROMPT_ENVIRONMENTS + 5 }, (_, i) =>
        t.services.prompts.setEnvironment(alice, slug, `e${i}`, { version: 1 + (i % 3) }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX_PROMPT_ENVIRONMENTS);
    expect((await t.services.prompts.environments(alice, slug)).total).toBe(MAX_PROMPT_ENVIRONMENTS);
  });

  it('exports pointers and imports them into another account, then reports them unchanged', async () => {
    const owner = await t.actor();
    const slug = await threeVersions(owner);
    await t.services.prompts.setEnvironment(owner, slug, 'production', { version: 1, marketplace: true });
    await t.services.prompts.setEnvironment(owner, slug, 'staging', { version: 3 });
    const lines = await exportLines(owner);
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.type === 'prompt');
    expect(line.environments).toEqual([
      { name: 'production', version: 1, marketplace: true },
      { name: 'staging', version: 3, marketplace: false },
    ]);

    const carol = await t.actor();
    const first = await t.services.bundles.import(carol, asRaw(lines), { dryRun: false });
    expect(first.created.prompts).toBe(1);
    const envs = await t.services.prompts.environments(carol, slug);
    expect(envs.environments.map((e) => [e.name, e.version, e.marketplace])).toEqual([
      ['production', 1, true],
      ['staging', 3, false],
    ]);
    expect((await t.services.prompts.get(carol, slug, 'production')).content).toBe('c1');
    const again = await t.services.bundles.import(carol, asRaw(lines), { dryRun: false });
    expect(again.unchanged.prompts).toBe(1);

    // Into an account whose prompt of that slug numbered its history its own way: a pointer is carried when
    // the same version (number and content) exists there, or to the current version for the line's current.
    const dave = await t.actor();
    await t.services.prompts.create(dave, { title: 'T', content: 'other', slug });
    const moved = await t.services.bundles.import(dave, asRaw(lines), { dryRun: false });
    expect(moved.updated.prompts).toBe(1);
    const daves = await t.services.prompts.environments(dave, slug);
    // Dave's version 1 is 'other' (not 'c1'): production is not carried; staging (the line's current) is.
    expect(daves.environments.map((e) => [e.name, e.version])).toEqual([['staging', 2]]);
    expect((await t.services.prompts.get(dave, slug, 'staging')).content).toBe('c3');
  });

  it('refuses a bundle whose pointers break the rules, before changing anything', async () => {
    const owner = await t.actor();
    const slug = await threeVersions(owner);
    const lines = (await exportLines(owner)).map((l) => JSON.parse(l));
    const erin = await t.actor();
    for (const environments of [
      [{ name: 'Bad Name', version: 1 }],
      [{ name: 'prod', version: 9 }],
      [
        { name: 'a', version: 1, marketplace: true },
        { name: 'b', version: 2, marketplace: true },
      ],
      Array.from({ length: MAX_PROMPT_ENVIRONMENTS + 1 }, (_, i) => ({ name: `e${i}`, version: 1 })),
    ]) {
      const bad = lines.map((l) => JSON.stringify(l.type === 'prompt' ? { ...l, environments } : l));
      await expect(t.services.bundles.import(erin, asRaw(bad), { dryRun: false })).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
    await expect(t.services.prompts.get(erin, slug)).rejects.toBeInstanceOf(NotFoundError);
  });
});
