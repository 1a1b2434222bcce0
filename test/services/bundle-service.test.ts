import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/common/actor.js';
import { ValidationError } from '../../src/domain/common/errors.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

describe.each(DIALECTS)('bundle service over real stores (%s)', (dialect) => {
  let t: TestServices;
  let alice: Actor;

  const exportLines = async (actor: Actor) => {
    const lines: string[] = [];
    for await (const line of t.services.bundles.export(actor)) lines.push(JSON.stringify(line));
    return lines;
  };
  const asRaw = (lines: string[]) =>
    async function* () {
      for (const [index, text] of lines.entries()) yield { number: index + 1, text };
    };

  beforeAll(async () => {
    t = await createTestServices(dialect);
    alice = await t.actor();
    await t.services.prompts.create(alice, { title: 'Tone', content: 'Be brief.', slug: 'tone' });
    await t.services.prompts.update(alice, 'tone', { content: 'Be very brief.' });
    await t.services.memories.create(alice, {
      text: 'Tabs, not spaces',
      project_name: 'go',
      metadata: { tags: ['x'] },
    });
    await t.services.artifacts.create(alice, { project: 'docs', slug: 'readme', title: 'Readme', content: 'hello' });
  });
  afterAll(() => t.close());

  it('round-trips every kind into another account, then reports everything unchanged', async () => {
    const lines = await exportLines(alice);
    const carol = await t.actor();
    const first = await t.services.bundles.import(carol, asRaw(lines), { dryRun: false });
    expect(first.created).toMatchObject({ prompts: 1, memories: 1, artifacts: 1 });
    const tone = await t.services.prompts.get(carol, 'tone');
    expect(tone.content).toBe('Be very brief.');
    expect(tone.version).toBe(2);
    expect((await t.services.artifacts.get(carol, 'docs', 'readme')).content).toBe('hello');
    const again = await t.services.bundles.import(carol, asRaw(lines), { dryRun: false });
    expect(again.created).toMatchObject({ prompts: 0, memories: 0, artifacts: 0 });
    expect(again.unchanged).toMatchObject({ prompts: 1, memories: 1, artifacts: 1 });
    // What carol exports is what alice exported, but for the owner.
    expect((await exportLines(carol)).length).toBe(lines.length);
  });

  it('changes nothing when one line is invalid, and nothing on a dry run', async () => {
    const lines = await exportLines(alice);
    const dave = await t.actor();
    const broken = [...lines.slice(0, -1), '{"kind":"memory"', ...lines.slice(-1)];
    await expect(t.services.bundles.import(dave, asRaw(broken), { dryRun: false })).rejects.toBeInstanceOf(
      ValidationError,
    );
    const dry = await t.services.bundles.import(dave, asRaw(lines), { dryRun: true });
    expect(dry.dry_run).toBe(true);
    expect(dry.created).toMatchObject({ prompts: 1, memories: 1, artifacts: 1 });
    expect(await exportLines(dave)).toHaveLength(2); // header and end: still empty
  });
});
