import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type AnyClient = {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, Json>>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<Record<string, Json>>;
  close(): Promise<void>;
};

const GENERATIONS = ['sdk 1.x (2025-11-25)', 'client 2.x (2026-07-28)'] as const;

async function connect(generation: (typeof GENERATIONS)[number], url: string, key: string): Promise<AnyClient> {
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  if (generation.startsWith('sdk')) {
    const client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(url), { requestInit }));
    return client as unknown as AnyClient;
  }
  const client = new ModernClient(
    { name: 'modern-test', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit }));
  return client as unknown as AnyClient;
}

const messageText = (got: Record<string, Json>) =>
  (got.messages as Array<{ content: { text: string } }>)[0]?.content.text;

/**
 * Environments over MCP, with the server's default environment set (`DEFAULT_PROMPT_ENVIRONMENT=production`)
 * and unset: `prompts/get` (`slug@environment`) and `svc_get_prompt` (`environment`), on both generations.
 */
describe.each(DIALECTS)('prompt environments over MCP (%s)', (dialect) => {
  for (const defaulted of [true, false]) {
    describe(defaulted ? 'with DEFAULT_PROMPT_ENVIRONMENT=production' : 'without a default environment', () => {
      let t: TestApp;
      let url: string;
      let owner: Awaited<ReturnType<TestApp['user']>>;
      let mcpKey: string;
      let otherMcpKey: string;

      beforeAll(async () => {
        t = await createTestApp(dialect, defaulted ? { DEFAULT_PROMPT_ENVIRONMENT: 'production' } : {});
        url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/mcp/v1/common`;
        owner = await t.user();
        mcpKey = (await t.key(owner.email, ['mcp_server'])).key;
        const other = await t.user();
        otherMcpKey = (await t.key(other.email, ['mcp_server'])).key;
        const rest = (method: 'POST' | 'PUT', path: string, payload: object) =>
          t.request(owner.key, { method, url: `/api/v1/prompts${path}`, payload });
        // `pinned`: versions 1–3, production → 1, staging → 2. `unpinned`: versions 1–2, no pointers.
        expect(
          (await rest('POST', '', { title: 'P', slug: 'pinned', content: 'v1 {{x}}', available_in_mcp: true }))
            .statusCode,
        ).toBe(201);
        await rest('PUT', '/pinned', { content: 'v2 {{x}}' });
        await rest('PUT', '/pinned', { content: 'v3 {{x}}' });
        await rest('PUT', '/pinned/environments/production', { version: 1 });
        await rest('PUT', '/pinned/environments/staging', { version: 2 });
        await rest('POST', '', { title: 'U', slug: 'unpinned', content: 'u1', available_in_mcp: true });
        await rest('PUT', '/unpinned', { content: 'u2' });
      });
      afterAll(async () => t?.close());

      for (const generation of GENERATIONS) {
        it(`serves environments through prompts/get and svc_get_prompt (${generation})`, async () => {
          const client = await connect(generation, url, mcpKey);
          try {
            // No environment named: the default one when the prompt has it, else the latest.
            const plain = await client.getPrompt({ name: 'pinned', arguments: { x: 'a' } });
            expect(messageText(plain)).toBe(defaulted ? 'v1 a' : 'v3 a');
            expect(messageText(await client.getPrompt({ name: 'unpinned' }))).toBe('u2');
            // Named: that pointer's version, whatever the default.
            expect(messageText(await client.getPrompt({ name: 'pinned@staging', arguments: { x: 'b' } }))).toBe('v2 b');
            await expect(client.getPrompt({ name: 'unpinned@production' })).rejects.toThrow(
              "Prompt 'unpinned' has no environment 'production'",
            );
            await expect(client.getPrompt({ name: 'pinned@Not_Valid' })).rejects.toThrow(/Prompt not found/);

            const tool = await client.callTool({
              name: 'svc_get_prompt',
              arguments: { slug: 'pinned', variables: { x: 'c' } },
            });
            expect(tool.structuredContent).toMatchObject(
              defaulted ? { content: 'v1 c', version: 1, environment: 'production' } : { content: 'v3 c', version: 3 },
            );
            const staged = await client.callTool({
              name: 'svc_get_prompt',
              arguments: { slug: 'pinned', environment: 'staging', variables: { x: 'd' } },
            });
            expect(staged.structuredContent).toMatchObject({ content: 'v2 d', version: 2, environment: 'staging' });
            const unset = await client.callTool({
              name: 'svc_get_prompt',
              arguments: { slug: 'unpinned', environment: 'production' },
            });
            expect(unset.isError).toBe(true);
            expect(JSON.stringify(unset.content)).toContain("Prompt 'unpinned' has no environment 'production'");
            const invalid = await client.callTool({
              name: 'svc_get_prompt',
              arguments: { slug: 'pinned', environment: 'Bad Name' },
            });
            expect(invalid.isError).toBe(true);
          } finally {
            await client.close();
          }
        });

        it(`shows a moved pointer on the next call, and nothing to another user (${generation})`, async () => {
          const client = await connect(generation, url, mcpKey);
          const stranger = await connect(generation, url, otherMcpKey);
          try {
            await t.request(owner.key, {
              method: 'PUT',
              url: '/api/v1/prompts/pinned/environments/staging',
              payload: { version: 3 },
            });
            expect(messageText(await client.getPrompt({ name: 'pinned@staging', arguments: { x: 'e' } }))).toBe('v3 e');
            await t.request(owner.key, {
              method: 'PUT',
              url: '/api/v1/prompts/pinned/environments/staging',
              payload: { version: 2 },
            });
            expect(messageText(await client.getPrompt({ name: 'pinned@staging', arguments: { x: 'e' } }))).toBe('v2 e');
            await expect(stranger.getPrompt({ name: 'pinned@staging' })).rejects.toThrow(/Prompt not found/);
            const tool = await stranger.callTool({
              name: 'svc_get_prompt',
              arguments: { slug: 'pinned', environment: 'staging' },
            });
            expect(tool.isError).toBe(true);
            expect(JSON.stringify(tool.content)).toContain('Prompt not found');
          } finally {
            await client.close();
            await stranger.close();
          }
        });
      }
    });
  }
});
