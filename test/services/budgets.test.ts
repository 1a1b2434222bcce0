import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_MIN_CHARS, MEMORY_TEXT_MAX, PROMPT_CONTENT_MAX } from '../../src/contract/index.js';
import { listArtifactsQuery } from '../../src/domain/artifacts/artifact-schemas.js';
import type { Actor } from '../../src/domain/common/actor.js';
import { PREVIEW_MARKER } from '../../src/domain/common/budget.js';
import { ValidationError } from '../../src/domain/common/errors.js';
import { listMemoriesQuery, type RankedMemory } from '../../src/domain/memories/memory-schemas.js';
import { listPromptsQuery } from '../../src/domain/prompts/prompt-schemas.js';
import { manualClock } from '../helpers/app.js';
import { awkwardText, lengths, SEED } from '../helpers/budget-data.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

const size = (value: unknown) => JSON.stringify(value).length;
const budgets = fc.integer({ min: BUDGET_MIN_CHARS, max: 60_000 });

/** A preview's text is the start of the whole one followed by the marker; a whole item is unchanged. */
function expectPrefixOf(shown: string, whole: string) {
  if (shown === whole) return;
  expect(shown.endsWith(PREVIEW_MARKER)).toBe(true);
  expect(whole.startsWith(shown.slice(0, -PREVIEW_MARKER.length))).toBe(true);
}

/**
 * Every budgeted list over real stores: the answer (its JSON text) never passes `max_chars`, pages cut short
 * by the budget continue exactly where they stopped, and a preview's id reads the whole item.
 */
describe.each(DIALECTS)('budgeted lists over real stores (%s)', (dialect) => {
  let t: TestServices;
  let owner: Actor;
  let other: Actor;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const texts = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestServices(dialect, {}, { clock });
    owner = await t.actor();
    other = await t.actor();
    const projects = ['acme', 'acme/backend', 'acme/backend/api', null];
    const memoryLengths = lengths(36, MEMORY_TEXT_MAX, SEED);
    for (const [i, length] of memoryLengths.entries()) {
      clock.advance(1000);
      const text = awkwardText(length, SEED + i);
      const created = await t.services.memories.create(owner, {
        text,
        project_name: projects[i % projects.length] ?? null,
        metadata: {
          priority: (['high', 'medium', 'low'] as const)[i % 3],
          tags: ['deploy'],
          ...(i % 5 === 0 && { note: awkwardText(6000, SEED + 100 + i) }),
        },
      });
      texts.set(created.memory_id, text);
    }
    for (const [i, length] of lengths(24, PROMPT_CONTENT_MAX, SEED + 1).entries()) {
      clock.advance(1000);
      await t.services.prompts.create(owner, {
        title: awkwardText(1 + (i % 4) * 60, SEED + 200 + i).trim() || 'Title',
        content: `{{topic}} ${awkwardText(length, SEED + 300 + i)}`,
        description: awkwardText(i % 3 === 0 ? 200 : 20, SEED + 400 + i).slice(0, 200),
        labels: i % 2 === 0 ? ['deploy', 'ops'] : [],
        available_in_mcp: i % 2 === 0,
        variable_schema: { topic: { description: awkwardText(400, SEED + 500 + i).slice(0, 500) } },
      });
    }
    for (const [i, length] of lengths(24, 12_000, SEED + 2).entries()) {
      clock.advance(1000);
      await t.services.artifacts.create(owner, {
        project: i % 2 === 0 ? 'acme/backend' : 'acme',
        title: awkwardText(1 + (i % 5) * 45, SEED + 600 + i).trim() || 'Title',
        content: `# Doc ${i}`,
        description: awkwardText(Math.min(500, length), SEED + 700 + i).slice(0, 500),
        metadata: { note: awkwardText(length, SEED + 800 + i).slice(0, 12_000) },
      });
    }
    // Another user's content, findable by the same words: it must never appear.
    for (let i = 0; i < 4; i++) {
      await t.services.memories.create(other, { text: `deploy payment SECRET-OTHER ${i}`, project_name: 'acme' });
      await t.services.prompts.create(other, {
        title: 'SECRET-OTHER',
        content: 'deploy',
        available_in_mcp: true,
      });
      await t.services.artifacts.create(other, { project: 'acme', title: 'SECRET-OTHER', content: 'x' });
    }
  }, 120_000);
  afterAll(() => t?.close());

  /** Follows `next_cursor` from the first page; checks each page's size; returns the items in order. */
  async function pageThrough<T>(
    first: () => Promise<{ items: T[]; next: string | null; json: unknown }>,
    next: (cursor: string) => Promise<{ items: T[]; next: string | null; json: unknown }>,
    maxChars: number,
    between: () => Promise<void> = async () => {},
  ): Promise<T[]> {
    const all: T[] = [];
    let page = await first();
    for (let pages = 1; ; pages++) {
      expect(size(page.json)).toBeLessThanOrEqual(maxChars);
      expect(JSON.stringify(page.json)).not.toContain('SECRET-OTHER');
      all.push(...page.items);
      if (page.next === null) return all;
      expect(page.items.length).toBeGreaterThan(0);
      expect(pages).toBeLessThan(200);
      await between();
      page = await next(page.next);
    }
  }

  it('memory lists and searches: within the budget, every memory once through the cursors', async () => {
    await fc.assert(
      fc.asyncProperty(
        budgets,
        fc.integer({ min: 1, max: 100 }),
        fc.constantFrom<Record<string, string>>(
          {},
          { project_name: 'acme' },
          { search: '' },
          { search: '', project_name: 'acme/backend' },
          { search: 'deploy payment' },
        ),
        async (maxChars, perPage, filter) => {
          const ranked = filter.search !== undefined;
          // The full order, without a budget and without counting accesses.
          const everything = ranked
            ? (
                await t.services.memories.rank(owner, {
                  ...filter,
                  search: filter.search ?? '',
                  tags: [],
                  offset: 0,
                  limit: 100,
                })
              ).memories
            : (await t.services.memories.list(owner, listMemoriesQuery.parse({ ...filter, per_page: '100' }))).memories;
          const query = (extra: Record<string, string>) =>
            listMemoriesQuery.parse({ ...filter, per_page: String(perPage), max_chars: String(maxChars), ...extra });
          const read = async (extra: Record<string, string>) => {
            const answer = await t.services.memories.list(owner, query(extra));
            return { items: answer.memories, next: answer.next_cursor, json: answer };
          };
          // Counting the accesses of a ranked page between pages must not move the next page's start.
          const shown = await pageThrough(
            () => read({}),
            (cursor) => read({ cursor }),
            maxChars,
            () => t.container.access.flush(),
          );
          expect(shown.map((m) => m.memory_id)).toEqual(everything.map((m) => m.memory_id));
          for (const memory of shown) expectPrefixOf(memory.text, texts.get(memory.memory_id) as string);
        },
      ),
      { numRuns: 12, seed: SEED },
    );
  });

  it('svc_search_memories pages: within the budget, every result once, only the shown ones counted', async () => {
    await fc.assert(
      fc.asyncProperty(budgets, fc.integer({ min: 1, max: 50 }), async (maxChars, limit) => {
        const everything = (
          await t.services.memories.rank(owner, { search: 'deploy', tags: [], offset: 0, limit: 100 })
        ).memories;
        const read = async (cursor?: string) => {
          const page = await t.services.memories.searchPage(owner, {
            search: 'deploy',
            limit,
            max_chars: maxChars,
            ...(cursor !== undefined && { cursor: Number(cursor) }),
          });
          return { items: page.memories, next: page.next_cursor, json: page };
        };
        const shown = await pageThrough(
          () => read(),
          (cursor) => read(cursor),
          maxChars,
          () => t.container.access.flush(),
        );
        expect(shown.map((m) => m.memory_id)).toEqual(everything.map((m) => m.memory_id));
      }),
      { numRuns: 8, seed: SEED },
    );
  });

  it('counts as accessed only the memories a budget-cut page shows', async () => {
    const reader = await t.actor();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await t.services.memories.create(reader, { text: `alpha ${'z'.repeat(20_000)} ${i}` })).memory_id);
    }
    clock.advance(60_000);
    const page = await t.services.memories.searchPage(reader, { search: 'alpha', limit: 6, max_chars: 2000 });
    expect(page.count).toBeLessThan(6);
    expect(page.next_cursor).toBe(String(page.count));
    await t.container.access.flush();
    const stored = await t.services.memories.list(reader, listMemoriesQuery.parse({}));
    const accessed = stored.memories.filter((m) => m.last_accessed_at !== null).map((m) => m.memory_id);
    expect(accessed.sort()).toEqual(page.memories.map((m) => m.memory_id).sort());
  });

  it('previews carry their id, and reading the memory by it gives the whole text', async () => {
    const answer = await t.services.memories.list(
      owner,
      listMemoriesQuery.parse({ per_page: '100', max_chars: '20000' }),
    );
    const previews = answer.memories.filter((m): m is RankedMemory & { truncated: true } => m.truncated === true);
    expect(previews.length).toBeGreaterThan(0);
    for (const preview of previews) {
      const whole = await t.services.memories.get(owner, preview.memory_id);
      expect(whole.text).toBe(texts.get(preview.memory_id));
      expectPrefixOf(preview.text, whole.text);
      expect(whole.text.length).toBeGreaterThan(preview.text.length - 1);
    }
  });

  it('prompt lists (full and summaries) and svc_list_prompts: within the budget, every prompt once', async () => {
    const everything = (await t.services.prompts.list(owner, listPromptsQuery.parse({ per_page: '100', full: 'true' })))
      .prompts;
    const mcpOnes = (await t.services.prompts.listForMcp(owner, { offset: 0, limit: 100 })).items;
    await fc.assert(
      fc.asyncProperty(budgets, fc.integer({ min: 1, max: 100 }), fc.boolean(), async (maxChars, perPage, full) => {
        const read = async (extra: Record<string, string>) => {
          const answer = await t.services.prompts.list(
            owner,
            listPromptsQuery.parse({
              per_page: String(perPage),
              max_chars: String(maxChars),
              ...(full && { full: 'true' }),
              ...extra,
            }),
          );
          return { items: answer.prompts, next: answer.next_cursor ?? null, json: answer };
        };
        const shown = await pageThrough(
          () => read({}),
          (cursor) => read({ cursor }),
          maxChars,
        );
        expect(shown.map((p) => p.id)).toEqual(everything.map((p) => p.id));
        for (const [i, prompt] of shown.entries()) {
          const whole = everything[i];
          if (full && prompt.content !== undefined) expectPrefixOf(prompt.content, whole?.content as string);
          if (prompt.truncated) expect((await t.services.prompts.get(owner, prompt.id)).content).toBe(whole?.content);
        }
        const tool = await pageThrough(
          async () => {
            const page = await t.services.prompts.index(owner, { limit: perPage, max_chars: maxChars });
            return { items: page.prompts, next: page.next_cursor, json: page };
          },
          async (cursor) => {
            const page = await t.services.prompts.index(owner, {
              cursor: Number(cursor),
              limit: perPage,
              max_chars: maxChars,
            });
            return { items: page.prompts, next: page.next_cursor, json: page };
          },
          maxChars,
        );
        expect(tool.map((p) => p.id)).toEqual(mcpOnes.map((p) => p.id));
      }),
      { numRuns: 10, seed: SEED },
    );
  });

  it('artifact lists and svc_list_artifacts: within the budget, every artifact once; previews read whole', async () => {
    const everything = (await t.services.artifacts.list(owner, listArtifactsQuery.parse({ per_page: '100' })))
      .artifacts;
    await fc.assert(
      fc.asyncProperty(budgets, fc.integer({ min: 1, max: 100 }), async (maxChars, perPage) => {
        const read = async (extra: Record<string, string>) => {
          const answer = await t.services.artifacts.list(
            owner,
            listArtifactsQuery.parse({ per_page: String(perPage), max_chars: String(maxChars), ...extra }),
          );
          return { items: answer.artifacts, next: answer.next_cursor, json: answer };
        };
        const shown = await pageThrough(
          () => read({}),
          (cursor) => read({ cursor }),
          maxChars,
        );
        expect(shown.map((a) => a.id)).toEqual(everything.map((a) => a.id));
        for (const artifact of shown.filter((a) => a.truncated)) {
          const whole = await t.services.artifacts.get(owner, artifact.project, artifact.slug);
          const listed = everything.find((a) => a.id === artifact.id);
          expect(whole.metadata).toEqual(listed?.metadata);
          expectPrefixOf(artifact.title, whole.title);
        }
        const tool = await pageThrough(
          async () => {
            const page = await t.services.artifacts.index(owner, { label: [], limit: perPage, max_chars: maxChars });
            return { items: page.artifacts, next: page.next_cursor, json: page };
          },
          async (cursor) => {
            const page = await t.services.artifacts.index(owner, {
              label: [],
              cursor: Number(cursor),
              limit: perPage,
              max_chars: maxChars,
            });
            return { items: page.artifacts, next: page.next_cursor, json: page };
          },
          maxChars,
        );
        expect(tool.map((a) => a.id)).toEqual(everything.map((a) => a.id));
      }),
      { numRuns: 10, seed: SEED },
    );
  });

  it('refuses budgets, cursors and windows it never hands out, whoever calls', async () => {
    const refused = async (call: () => Promise<unknown>, field: string) => {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).details)).toContain(field);
    };
    await refused(() => t.services.memories.searchPage(owner, { search: '', limit: 5, max_chars: 100 }), 'max_chars');
    await refused(() => t.services.memories.searchPage(owner, { search: '', limit: 500, max_chars: 5000 }), 'limit');
    await refused(
      () => t.services.memories.searchPage(owner, { search: '', limit: 5, max_chars: 5000, cursor: 10_000 }),
      'cursor',
    );
    await refused(() => t.services.prompts.index(owner, { limit: 5, max_chars: 5000, cursor: -1 }), 'cursor');
    await refused(() => t.services.artifacts.index(owner, { label: [], limit: 0, max_chars: 5000 }), 'limit');
    expect(() => listMemoriesQuery.parse({ page: '2', cursor: '40' })).toThrow(/Give either page or cursor/);
    expect(() => listMemoriesQuery.parse({ cursor: '1234567' })).toThrow(/next_cursor this server returned/);
    expect(() => listPromptsQuery.parse({ max_chars: '1999' })).toThrow(/max_chars must be between 2000/);
  });
});
