import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_DEFAULT_CHARS, BUDGET_MIN_CHARS } from '../../src/contract/index.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { awkwardText, lengths, SEED } from '../helpers/budget-data.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type ToolClient = {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, Json>>;
  close(): Promise<void>;
};
type Generation = 'sdk 1.x (2025-11-25)' | 'client 2.x (2026-07-28)';

async function connect(generation: Generation, url: string, key: string): Promise<ToolClient> {
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  if (generation.startsWith('sdk')) {
    const client = new LegacyClient({ name: 'budget-test', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(url), { requestInit }));
    return client as unknown as ToolClient;
  }
  const client = new ModernClient(
    { name: 'budget-test', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit }));
  return client as unknown as ToolClient;
}

const textOf = (result: Record<string, Json>) =>
  (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

/**
 * What a model receives from the list tools and `svc_get_context`, through real clients of both protocol
 * generations: the structured answer's JSON and the text rendering each within `max_chars` (default 20,000),
 * cursors that page through every item once, previews readable whole, and nothing of another user's.
 */
describe.each(DIALECTS)('MCP budgets (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let url: string;
  let mcpKey: string;
  let otherKey: string;
  const texts = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { clock });
    url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/mcp/v1/common`;
    const owner = await t.user();
    mcpKey = (await t.key(owner.email, ['mcp_server'])).key;
    const actor = { userId: owner.userId, integrations: new Set(['ai_tools'] as const), via: 'rest' as const };
    const { services } = t.container;
    // Twenty memories of up to 50,000 characters: about a megabyte without a budget.
    for (const [i, length] of lengths(20, 50_000, SEED + 30).entries()) {
      clock.advance(1000);
      const text = `deploy ${awkwardText(length, SEED + 3000 + i)}`;
      const memory = await services.memories.create(actor, {
        text,
        project_name: i % 2 === 0 ? 'acme/backend' : 'acme',
        metadata: { priority: i % 5 === 0 ? 'high' : 'medium' },
      });
      texts.set(memory.memory_id, text);
    }
    for (let i = 0; i < 15; i++) {
      await services.prompts.create(actor, {
        title: `Prompt ${i}`,
        description: awkwardText(200, SEED + 3100 + i).slice(0, 200),
        content: `{{topic}} ${'p'.repeat(1000)}`,
        available_in_mcp: true,
        variable_schema: { topic: { description: awkwardText(500, SEED + 3200 + i).slice(0, 500) } },
      });
      await services.artifacts.create(actor, {
        project: 'acme/backend',
        title: `Artifact ${i}`,
        content: 'a'.repeat(100 * (i + 1)),
        metadata: { note: awkwardText(4000, SEED + 3300 + i) },
      });
    }
    const other = await t.user();
    otherKey = (await t.key(other.email, ['mcp_server'])).key;
    const otherActor = { userId: other.userId, integrations: new Set(['ai_tools'] as const), via: 'rest' as const };
    await services.memories.create(otherActor, {
      text: 'SECRET-OTHER deploy',
      project_name: 'acme/backend',
      metadata: { priority: 'high' },
    });
    await services.artifacts.create(otherActor, { project: 'acme/backend', title: 'SECRET-OTHER', content: 'x' });
  }, 120_000);
  afterAll(async () => t?.close());

  describe.each(['sdk 1.x (2025-11-25)', 'client 2.x (2026-07-28)'] as const)('with %s', (generation) => {
    let client: ToolClient;
    beforeAll(async () => {
      client = await connect(generation, url, mcpKey);
    });
    afterAll(async () => client?.close());

    /** Calls a tool; both of what a model may read stay within the budget. */
    async function call(name: string, args: Record<string, unknown>, maxChars = BUDGET_DEFAULT_CHARS) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(maxChars);
      expect(textOf(result).length).toBeLessThanOrEqual(maxChars);
      expect(JSON.stringify(result)).not.toContain('SECRET-OTHER');
      return result;
    }

    /** Follows next_cursor; the items in order. */
    async function follow(name: string, args: Record<string, unknown>, key: string, maxChars?: number) {
      const items: Json[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const budget = maxChars === undefined ? {} : { max_chars: maxChars };
        const result = await call(name, { ...args, ...budget, ...(cursor !== null && { cursor }) }, maxChars);
        items.push(...result.structuredContent[key]);
        cursor = result.structuredContent.next_cursor;
        if (cursor === null) return items;
        expect(textOf(result)).toContain(`cursor "${cursor}"`);
      }
      throw new Error('no end after 100 pages');
    }

    it('keeps svc_search_memories within the default budget and pages through every result once', async () => {
      const first = await call('svc_search_memories', { search: 'deploy', limit: 20 });
      expect(first.structuredContent.count).toBeLessThan(20 * 2);
      const previews = first.structuredContent.memories.filter((m: Json) => m.truncated);
      expect(previews.length).toBeGreaterThan(0);
      expect(textOf(first)).toMatch(/a preview: svc_get_memory gives it whole/);
      for (const preview of previews.slice(0, 3)) {
        const whole = await client.callTool({ name: 'svc_get_memory', arguments: { memory_id: preview.memory_id } });
        expect(whole.structuredContent.text).toBe(texts.get(preview.memory_id));
      }
      for (const maxChars of [BUDGET_MIN_CHARS, 9_000]) {
        const ids = (await follow('svc_search_memories', { search: 'deploy', limit: 20 }, 'memories', maxChars)).map(
          (m) => m.memory_id,
        );
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set(texts.keys()));
      }
    });

    it('pages svc_list_prompts and svc_list_artifacts within small budgets, every item once', async () => {
      const id = (item: Json) => item.id;
      const allPrompts = await follow('svc_list_prompts', { limit: 100 }, 'prompts', 1_000_000);
      expect(allPrompts).toHaveLength(15);
      const prompts = await follow('svc_list_prompts', { limit: '100' }, 'prompts', BUDGET_MIN_CHARS);
      expect(prompts.map(id)).toEqual(allPrompts.map(id));
      expect(prompts.some((p) => p.truncated && p.variables[0]?.name === 'topic')).toBe(true);
      const allArtifacts = await follow('svc_list_artifacts', { project: 'acme', limit: 100 }, 'artifacts', 1_000_000);
      expect(allArtifacts).toHaveLength(15);
      const artifacts = await follow('svc_list_artifacts', { project: 'acme' }, 'artifacts', 3_000);
      expect(artifacts.map(id)).toEqual(allArtifacts.map(id));
      const preview = artifacts.find((a) => a.truncated);
      expect(preview).toBeDefined();
      const whole = await client.callTool({
        name: 'svc_get_artifact',
        arguments: { project: preview.project, slug: preview.slug },
      });
      expect(whole.structuredContent.metadata.note.length).toBeGreaterThan(1000);
    });

    it('gives svc_get_context one bounded, deterministic block of the caller’s own context', async () => {
      const args = { project_name: 'acme/backend', task: 'How do we deploy?' };
      const first = await call('svc_get_context', args);
      const second = await call('svc_get_context', args);
      expect(second.structuredContent).toEqual(first.structuredContent);
      expect(textOf(second)).toBe(textOf(first));
      const block = first.structuredContent;
      expect(block.pinned_memories.length).toBeGreaterThan(0);
      expect(block.pinned_memories.every((m: Json) => m.metadata.priority === 'high')).toBe(true);
      expect(new Set(block.pinned_memories.map((m: Json) => m.project_name))).toEqual(
        new Set(['acme/backend', 'acme']),
      );
      expect(block.relevant_memories[0].why.reason).toMatch(/^matches the task/);
      expect(block.prompts[0].arguments[0]).toMatchObject({ name: 'topic', required: true });
      expect(textOf(first)).toMatch(/^# Context for acme\/backend\n/);
      expect(textOf(first)).toMatch(/Left out for the budget: \d+ memories/);
      for (const maxChars of [BUDGET_MIN_CHARS, 4_000, 60_000]) {
        const small = await call('svc_get_context', { ...args, max_chars: maxChars }, maxChars);
        expect(small.structuredContent.max_chars).toBe(maxChars);
      }
      const tiny = (await call('svc_get_context', { ...args, max_chars: BUDGET_MIN_CHARS }, BUDGET_MIN_CHARS))
        .structuredContent;
      expect(tiny.left_out.memories + tiny.left_out.prompts + tiny.left_out.artifacts).toBeGreaterThan(0);
    });

    it('refuses budgets and cursors out of range as tool errors naming them', async () => {
      for (const [name, args, field] of [
        ['svc_search_memories', { max_chars: 10 }, 'max_chars'],
        ['svc_list_prompts', { cursor: 'abc' }, 'cursor'],
        ['svc_list_artifacts', { cursor: -1 }, 'cursor'],
        ['svc_get_context', { task: 'x'.repeat(2001) }, 'task'],
      ] as const) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, name).toBe(true);
        expect(textOf(result)).toMatch(new RegExp(`validation_error.*${field}`, 's'));
      }
    });
  });

  it('never shows another user’s context', async () => {
    const other = await connect('client 2.x (2026-07-28)', url, otherKey);
    try {
      const block = (await other.callTool({ name: 'svc_get_context', arguments: { project_name: 'acme/backend' } }))
        .structuredContent;
      expect(block.pinned_memories.map((m: Json) => m.text)).toEqual(['SECRET-OTHER deploy']);
      expect(block.relevant_memories).toEqual([]);
      expect(block.artifacts.map((a: Json) => a.title)).toEqual(['SECRET-OTHER']);
      expect(block.prompts).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
