import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { TestEmbedder } from '../helpers/embedder.js';

type ToolClient = {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{ structuredContent?: unknown }>;
  close(): Promise<void>;
};

async function connect(generation: 'legacy' | 'modern', url: string, key: string): Promise<ToolClient> {
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  if (generation === 'legacy') {
    const client = new LegacyClient({ name: 'semantic-test', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(url), { requestInit }));
    return client as unknown as ToolClient;
  }
  const client = new ModernClient(
    { name: 'semantic-test', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit }));
  return client as unknown as ToolClient;
}

const QUESTION = 'how is new code made live?';

/** Semantic search through the transports: REST with explain, and MCP tools with both client generations. */
describe.each(DIALECTS)('semantic search over REST and MCP (%s)', (dialect) => {
  let embedder: TestEmbedder;
  let t: TestApp;
  let url: string;
  let restKey: string;
  let mcpKey: string;
  let pipelineId: string;

  beforeAll(async () => {
    embedder = await TestEmbedder.start();
    t = await createTestApp(dialect, embedder.env());
    url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/mcp/v1/common`;
    const owner = await t.user();
    restKey = owner.key;
    mcpKey = (await t.key(owner.email, ['mcp_server'])).key;
    const created = await t.request(restKey, {
      method: 'POST',
      url: '/api/v1/memories',
      payload: { text: 'Releases go out through the blue/green pipeline', project_name: 'acme' },
    });
    expect(created.statusCode).toBe(201);
    pipelineId = created.json().memory_id;
    await t.request(restKey, { method: 'POST', url: '/api/v1/memories', payload: { text: 'Tabs for indentation' } });
    await t.container.embeddings?.indexer.idle();
  });
  afterAll(async () => {
    await t.close();
    await embedder.close();
  });

  it('REST: the paraphrase is found, and explain shows the semantic part', async () => {
    const response = await t.request(restKey, {
      method: 'GET',
      url: `/api/v1/memories?search=${encodeURIComponent(QUESTION)}&explain=true`,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.memories.map((m: { memory_id: string }) => m.memory_id)).toEqual([pipelineId]);
    expect(body.total).toBe(1);
    expect(body.memories[0].score_parts).toMatchObject({ keyword: 0, vector_search: 'used' });
    expect(body.memories[0].score_parts.semantic).toBeGreaterThan(0.35);
  });

  it.each(['legacy', 'modern'] as const)(
    'MCP (%s client): svc_search_memories and svc_get_context use it',
    async (generation) => {
      const client = await connect(generation, url, mcpKey);
      try {
        const found = (await client.callTool({ name: 'svc_search_memories', arguments: { search: QUESTION } }))
          .structuredContent as { memories: Array<{ memory_id: string }> };
        expect(found.memories.map((m) => m.memory_id)).toEqual([pipelineId]);
        const context = await client.callTool({
          name: 'svc_get_context',
          arguments: { task: QUESTION, project_name: 'acme' },
        });
        // Among the memories relevant to the task (a search with words: without vectors it would need a keyword).
        const relevant = (context.structuredContent as { relevant_memories: unknown[] }).relevant_memories;
        expect(JSON.stringify(relevant)).toContain(pipelineId);
      } finally {
        await client.close();
      }
    },
  );
});
