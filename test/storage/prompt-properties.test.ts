import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/common/actor.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

/**
 * Properties of the prompt lifecycle through the real service and store: rendering with every variable
 * supplied leaves no placeholder of a declared variable, rendering is deterministic, and restoring
 * version n makes the prompt identical to version n.
 */
describe.each(DIALECTS)('prompt lifecycle properties (%s)', (dialect) => {
  let t: TestApp;
  let actor: Actor;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    const user = await t.user();
    actor = { userId: user.userId, integrations: new Set(['ai_tools', 'cli']), via: 'operator' };
  });
  afterAll(async () => t?.close());

  const prompts = () => t.container.services.prompts;
  const names = fc.constantFrom('a', 'b', 'topic', 'lang', 'x_1', 'Name');
  /** Text with no braces and no @ (so it makes neither variables nor references). */
  const text = fc.string({ maxLength: 12 }).map((s) => s.replace(/[{}@]/g, ''));
  const placeholder = fc
    .tuple(names, fc.constantFrom('', ' ', '  '), fc.constantFrom('', ' '))
    .map(([name, left, right]) => `{{${left}${name}${right}}}`);
  const template = fc
    .array(fc.oneof(text, placeholder), { minLength: 1, maxLength: 8 })
    .map((parts) => `${parts.join('')} end`);
  const value = fc.string({ maxLength: 10 }).map((s) => s.replace(/[{}]/g, ''));

  it('rendering with all variables supplied leaves no {{name}} of a declared variable, deterministically', async () => {
    await fc.assert(
      fc.asyncProperty(template, template, fc.dictionary(names, value), async (leafContent, rootContent, extra) => {
        const n = ++seq;
        await prompts().create(actor, { title: 'Leaf', slug: `leaf-${n}`, content: leafContent });
        const root = await prompts().create(actor, {
          title: 'Root',
          slug: `root-${n}`,
          content: `${rootContent} @leaf-${n}`,
        });
        const declared = [
          ...new Set(
            [...`${rootContent}${leafContent}`.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)].map((m) => m[1]),
          ),
        ] as string[];
        const variables = Object.fromEntries(declared.map((name) => [name, extra[name] ?? `v-${name}`]));
        const first = await prompts().render(actor, root.slug, { variables, strict: true });
        for (const name of declared) {
          expect(first.content).not.toMatch(new RegExp(`\\{\\{\\s*${name}\\s*\\}\\}`));
        }
        expect(first.variables_missing).toEqual([]);
        expect([...first.variables_used].sort()).toEqual([...declared].sort());
        const again = await prompts().render(actor, root.id, { variables, strict: true });
        expect(again.content).toBe(first.content);
        expect(again.references_resolved).toEqual(first.references_resolved);
      }),
      { numRuns: 40 },
    );
  });

  const edit = fc.record(
    {
      title: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0),
      description: fc.string({ maxLength: 20 }),
      content: template,
      labels: fc.uniqueArray(fc.constantFrom('x', 'y', 'z', 'ops'), { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );

  it('restoring version n yields a prompt identical to version n', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 5 }), fc.nat(), async (edits, pick) => {
        const created = await prompts().create(actor, { title: 'Start', slug: `restore-${++seq}`, content: 'v1' });
        for (const change of edits) await prompts().update(actor, created.slug, change);
        const latest = (await prompts().get(actor, created.slug)).version;
        const n = (pick % latest) + 1;
        const target = await prompts().version(actor, created.slug, n);
        const restored = await prompts().restore(actor, created.slug, { version: n });
        expect(restored.version).toBe(latest + 1);
        const current = await prompts().get(actor, created.slug);
        expect({
          title: current.title,
          description: current.description,
          content: current.content,
          labels: current.labels,
          variable_schema: current.variable_schema,
        }).toEqual({
          title: target.title,
          description: target.description,
          content: target.content,
          labels: target.labels,
          variable_schema: target.variable_schema,
        });
        const newest = await prompts().version(actor, created.slug, latest + 1);
        expect(newest.content).toBe(target.content);
      }),
      { numRuns: 40 },
    );
  });
});
