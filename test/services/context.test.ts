import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_MAX_CHARS, BUDGET_MIN_CHARS } from '../../src/contract/index.js';
import type { Actor } from '../../src/domain/common/actor.js';
import { PREVIEW_MARKER } from '../../src/domain/common/budget.js';
import { ValidationError } from '../../src/domain/common/errors.js';
import type { Context, ContextMemory } from '../../src/domain/context/context-schemas.js';
import { taskSearch } from '../../src/domain/context/context-service.js';
import { listMemoriesQuery } from '../../src/domain/memories/memory-schemas.js';
import { manualClock } from '../helpers/app.js';
import { awkwardText, lengths, SEED } from '../helpers/budget-data.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

const size = (value: unknown) => JSON.stringify(value).length;
const ids = (memories: ContextMemory[]) => memories.map((m) => m.memory_id);

describe.each(DIALECTS)('the context block over real stores (%s)', (dialect) => {
  let t: TestServices;
  let owner: Actor;
  let other: Actor;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const byName: Record<string, string> = {};

  const remember = async (actor: Actor, name: string, text: string, project: string | null, priority?: string) => {
    clock.advance(60_000);
    const created = await t.services.memories.create(actor, {
      text,
      project_name: project,
      ...(priority !== undefined && { metadata: { priority } }),
    });
    byName[name] = created.memory_id;
  };

  beforeAll(async () => {
    t = await createTestServices(dialect, {}, { clock });
    owner = await t.actor();
    other = await t.actor();
    await remember(owner, 'global-high', 'Always answer in British English.', null, 'high');
    await remember(owner, 'parent-high', 'Acme: every service logs JSON to stdout.', 'acme', 'high');
    await remember(owner, 'self-high', 'Backend: migrations run before deploys.', 'acme/backend', 'high');
    await remember(owner, 'child-high', 'API: version every endpoint under /v1.', 'acme/backend/api', 'high');
    await remember(owner, 'unrelated-high', 'Marketing site uses Hugo.', 'marketing', 'high');
    await remember(owner, 'deploy', 'Deploy the payment service with the blue-green script.', 'acme/backend');
    await remember(owner, 'payments', 'Payment webhooks retry five times with backoff.', 'acme/backend', 'low');
    await remember(owner, 'style', 'Prefer small pull requests.', 'acme/backend');
    await remember(owner, 'other-project', 'Deploy the marketing site on Fridays.', 'marketing');
    // Another user's content under the same names and words: never part of the owner's block.
    await remember(other, 'x1', 'SECRET-OTHER deploy payment', 'acme/backend', 'high');
    await remember(other, 'x2', 'SECRET-OTHER global', null, 'high');
    await t.services.prompts.create(other, { title: 'SECRET-OTHER', content: 'x', available_in_mcp: true });
    await t.services.artifacts.create(other, { project: 'acme/backend', title: 'SECRET-OTHER', content: 'x' });

    await t.services.prompts.create(owner, {
      title: 'Code review',
      slug: 'code-review',
      description: 'Review a diff',
      content: 'Review this {{language}} diff for {{focus}}.',
      available_in_mcp: true,
      variable_schema: { language: { description: 'The language' }, focus: { required: false } },
    });
    await t.services.prompts.create(owner, {
      title: 'Private draft',
      content: 'Not for tools',
      available_in_mcp: false,
    });
    await t.services.artifacts.create(owner, {
      project: 'acme/backend',
      slug: 'api-design',
      title: 'API design',
      content: 'x'.repeat(5120),
    });
    await t.services.artifacts.create(owner, { project: 'acme/backend/api', title: 'Endpoints', content: 'y' });
    await t.services.artifacts.create(owner, { project: 'acme', title: 'Parent notes', content: 'z' });
  }, 120_000);
  afterAll(() => t?.close());

  const get = (input: Partial<Parameters<TestServices['services']['context']['get']>[1]> = {}) =>
    t.services.context.get(owner, { max_chars: 20_000, ...input });

  it('pins the high-priority memories of the project, its sub-projects, its parents and global ones, nearest first', async () => {
    const block = await get({ project_name: 'acme/backend' });
    expect(ids(block.pinned_memories)).toEqual([
      byName['self-high'],
      byName['child-high'],
      byName['parent-high'],
      byName['global-high'],
    ]);
    expect(block.pinned_memories.map((m) => m.why.reason)).toEqual([
      'high priority, this project',
      'high priority, sub-project acme/backend/api',
      'high priority, parent project acme',
      'high priority, global',
    ]);
    for (const memory of block.pinned_memories) {
      expect(memory.why.parts.priority).toBe(1);
      expect(memory.why.score).toBeGreaterThan(0);
    }
    // The parts are the search's own: its explain for the same memory says the same.
    const explained = await t.services.memories.rank(owner, {
      search: '',
      project_name: 'acme/backend',
      priority: 'high',
      tags: [],
      offset: 0,
      limit: 10,
      explain: true,
    });
    expect(explained.memories.map((m) => [m.memory_id, m.score, m.score_parts?.project])).toEqual(
      block.pinned_memories.map((m) => [m.memory_id, m.why.score, m.why.parts.project]),
    );
  });

  it('ranks the task’s memories (pinned ones left to the first section), lists MCP prompts and the project’s artifacts', async () => {
    const block = await get({ project_name: 'acme/backend', task: 'How do we deploy the payment service?' });
    expect(block.relevant_memories[0]?.memory_id).toBe(byName.deploy);
    expect(ids(block.relevant_memories)).toContain(byName.payments);
    expect(ids(block.relevant_memories)).not.toContain(byName['self-high']);
    expect(ids(block.relevant_memories)).not.toContain(byName['other-project']);
    expect(block.relevant_memories[0]?.why.reason).toBe('matches the task, this project');
    expect(block.relevant_memories[0]?.why.parts.keyword).toBe(1);
    expect(block.prompts).toEqual([
      {
        id: expect.stringMatching(/^prm_/),
        name: 'code-review',
        title: 'Code review',
        description: 'Review a diff',
        arguments: [
          { name: 'language', description: 'The language', required: true },
          { name: 'focus', required: false },
        ],
        why: 'available to AI tools (available_in_mcp)',
      },
    ]);
    expect(block.artifacts.map((a) => `${a.project}/${a.slug}`)).toEqual([
      'acme/backend/api/endpoints',
      'acme/backend/api-design',
    ]);
    expect(block.artifacts[1]).toMatchObject({ title: 'API design', size_bytes: 5120, why: 'in this project' });
    expect(block.artifacts[0]?.why).toBe('in sub-project acme/backend/api');
    expect(block.left_out).toEqual({ memories: 0, prompts: 0, artifacts: 0 });
    expect(JSON.stringify(block)).not.toContain('SECRET-OTHER');
  });

  it('without a task gives the project’s automatic context; without a project, every project', async () => {
    const block = await get({ project_name: 'acme/backend', task: 'the and of' });
    expect(block.relevant_memories[0]?.why.reason).toMatch(/^automatic context/);
    expect(ids(block.relevant_memories)).toEqual(
      expect.arrayContaining([byName.deploy, byName.style, byName.payments]),
    );
    const everywhere = await get();
    expect(everywhere.project_name).toBeNull();
    expect(ids(everywhere.pinned_memories)).toContain(byName['unrelated-high']);
    expect(everywhere.artifacts).toHaveLength(3);
    expect(JSON.stringify(everywhere)).not.toContain('SECRET-OTHER');
  });

  it('is deterministic and counts no access: the same data, clock and input give the same block', async () => {
    const input = { project_name: 'acme/backend', task: 'deploy payments', max_chars: 3000 };
    const first = await get(input);
    await t.container.access.flush();
    const second = await get(input);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    const stored = await t.services.memories.list(owner, listMemoriesQuery.parse({ per_page: '100' }));
    expect(stored.memories.every((m) => m.last_accessed_at === null)).toBe(true);
  });

  it('makes the task’s search of its leading words, common English words left out', () => {
    expect(taskSearch('How do we deploy the Payment service? The payment one.')).toBe('deploy payment service one');
    expect(taskSearch(undefined)).toBe('');
    expect(taskSearch('the of and')).toBe('');
  });

  describe('within any budget', () => {
    let heavy: Actor;
    let full: Context;
    beforeAll(async () => {
      heavy = await t.actor();
      const projects = ['acme', 'acme/backend', 'acme/backend/api', null];
      for (const [i, length] of lengths(40, 50_000, SEED + 9).entries()) {
        clock.advance(1000);
        // Short generated texts can repeat: every one must be a row of its own here.
        await t.services.memories.create(
          heavy,
          {
            text: `deploy ${awkwardText(length, SEED + 900 + i)}`,
            project_name: projects[i % 4] ?? null,
            metadata: { priority: (['high', 'medium', 'low'] as const)[i % 3] },
          },
          { dedupe: false },
        );
      }
      for (let i = 0; i < 30; i++) {
        await t.services.prompts.create(heavy, {
          title: awkwardText(20 + (i % 4) * 50, SEED + 1000 + i).trim() || 'T',
          description: awkwardText(150, SEED + 1100 + i).slice(0, 200),
          content: `{{a${i}}} text`,
          available_in_mcp: true,
        });
        await t.services.artifacts.create(heavy, {
          project: 'acme/backend',
          title: awkwardText(30 + (i % 5) * 40, SEED + 1200 + i).trim() || 'T',
          content: 'c',
        });
      }
      full = await t.services.context.get(heavy, {
        project_name: 'acme/backend',
        task: 'deploy',
        max_chars: BUDGET_MAX_CHARS,
      });
    }, 120_000);

    it('never exceeds max_chars, shows a prefix of each section (whole or previews), and counts the rest as left out', async () => {
      // 14 high-priority memories (all pinned), 20 of the 26 others (the relevant section's cap), 30 and 30.
      expect([
        full.pinned_memories.length,
        full.relevant_memories.length,
        full.prompts.length,
        full.artifacts.length,
      ]).toEqual([14, 20, 30, 30]);
      expect(full.left_out).toEqual({ memories: 0, prompts: 0, artifacts: 0 });
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: BUDGET_MIN_CHARS, max: 80_000 }), async (maxChars) => {
          const block = await t.services.context.get(heavy, {
            project_name: 'acme/backend',
            task: 'deploy',
            max_chars: maxChars,
          });
          expect(size(block)).toBeLessThanOrEqual(maxChars);
          for (const key of ['pinned_memories', 'relevant_memories', 'prompts', 'artifacts'] as const) {
            const shown = block[key] as Array<{ truncated?: true }>;
            const all = full[key] as unknown[];
            shown.forEach((item, i) => {
              const whole = all[i] as Record<string, unknown>;
              const { truncated: _t, ...rest } = item as Record<string, unknown>;
              if (item.truncated === undefined) expect(item).toEqual(whole);
              else expect(Object.keys(rest).sort()).toEqual(Object.keys(whole).sort());
              if ('text' in item && item.truncated) {
                const text = (item as ContextMemory).text;
                expect((whole.text as string).startsWith(text.slice(0, -PREVIEW_MARKER.length))).toBe(true);
              }
            });
          }
          const shownMemories = block.pinned_memories.length + block.relevant_memories.length;
          expect(shownMemories + block.left_out.memories).toBe(
            full.pinned_memories.length + full.relevant_memories.length + full.left_out.memories,
          );
          expect(block.prompts.length + block.left_out.prompts).toBe(full.prompts.length);
          expect(block.artifacts.length + block.left_out.artifacts).toBe(full.artifacts.length);
        }),
        { numRuns: 25, seed: SEED },
      );
    });

    it('gives every section a share when not everything fits', async () => {
      const block = await t.services.context.get(heavy, {
        project_name: 'acme/backend',
        task: 'deploy',
        max_chars: 12_000,
      });
      expect(block.pinned_memories.length).toBeGreaterThan(0);
      expect(block.relevant_memories.length).toBeGreaterThan(0);
      expect(block.prompts.length).toBeGreaterThan(0);
      expect(block.artifacts.length).toBeGreaterThan(0);
      expect(block.left_out.memories + block.left_out.prompts + block.left_out.artifacts).toBeGreaterThan(0);
    });
  });

  it('refuses what it cannot take, naming the field', async () => {
    const refused = async (input: Record<string, unknown>, field: string) => {
      const error = await t.services.context
        .get(owner, { max_chars: 20_000, ...input } as never)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).details)).toEqual([field]);
    };
    await refused({ max_chars: 10 }, 'max_chars');
    await refused({ project_name: 'a//b' }, 'project_name');
    await refused({ task: 'x'.repeat(2001) }, 'task');
  });
});
