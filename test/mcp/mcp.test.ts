import { request as httpRequest } from 'node:http';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type AnyClient = {
  listTools(): Promise<{ tools: Array<Record<string, Json>> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, Json>>;
  listPrompts(): Promise<{ prompts: Array<Record<string, Json>> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<Record<string, Json>>;
  listResources(): Promise<{ resources: Array<Record<string, Json>> }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Array<Record<string, Json>> }>;
  readResource(params: { uri: string }): Promise<Record<string, Json>>;
  close(): Promise<void>;
};

const TOOLS = [
  'svc_get_context',
  'svc_create_memory',
  'svc_search_memories',
  'svc_get_memory',
  'svc_update_memory',
  'svc_delete_memory',
  'svc_list_memory_versions',
  'svc_restore_memory',
  'svc_list_prompts',
  'svc_get_prompt',
  'svc_list_artifacts',
  'svc_get_artifact',
  'svc_save_artifact',
];

async function connect(
  generation: 'sdk 1.x (2025-11-25)' | 'client 2.x (2026-07-28)',
  url: string,
  key: string,
): Promise<AnyClient> {
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

const text = (result: Record<string, Json>) =>
  (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

describe.each(DIALECTS)('MCP endpoint (%s)', (dialect) => {
  let t: TestApp;
  let base: string;
  let url: string;
  let owner: Awaited<ReturnType<TestApp['user']>>;
  let mcpKey: string;
  let otherMcpKey: string;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    url = `${base}/mcp/v1/common`;
    owner = await t.user();
    mcpKey = (await t.key(owner.email, ['mcp_server'])).key;
    const other = await t.user();
    otherMcpKey = (await t.key(other.email, ['mcp_server'])).key;
  });
  afterAll(async () => t?.close());

  describe('HTTP contract', () => {
    it('answers GET and DELETE with 405 and Allow: POST', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(url, { method, headers: { authorization: `Bearer ${mcpKey}` } });
        expect(res.status, method).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(((await res.json()) as { error: string }).error).toBe('method_not_allowed');
      }
    });

    it('answers 401 without a key, with an invalid key, and with a key lacking mcp_server', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const none = await fetch(url, { method: 'POST', headers, body });
      expect(none.status).toBe(401);
      // A challenge that says what is wrong and offers nothing to discover (no resource_metadata), so
      // that clients report the key problem instead of attempting OAuth.
      const challenge = none.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(
        /^Bearer realm="cairn", error="invalid_token", error_description="Missing API key\. This server uses static API keys \(Authorization: Bearer svk_\.\.\.\) .*it does not support OAuth\."$/,
      );
      expect(challenge).not.toMatch(/resource_metadata|scope=/);
      const noneBody = (await none.json()) as { error: string; message: string };
      expect(noneBody.error).toBe('unauthorized');
      expect(noneBody.message).toMatch(
        /^Missing API key\. This server uses static API keys .*does not support OAuth\.$/,
      );
      const bad = await fetch(url, { method: 'POST', headers: { ...headers, authorization: 'Bearer svk_nope' }, body });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toMatch(
        /error="invalid_token", error_description="Invalid API key\./,
      );
      expect(((await bad.json()) as { message: string }).message).toMatch(
        /^Invalid API key\. This server uses static API keys/,
      );
      const rest = await fetch(url, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${owner.key}` },
        body,
      });
      expect(rest.status).toBe(401);
      expect(((await rest.json()) as { message: string }).message).toMatch(/mcp_server/);
    });

    it('offers no OAuth metadata or endpoints: discovery finds JSON 404s that point to static keys', async () => {
      const base = new URL(url).origin;
      for (const [method, path] of [
        ['GET', '/.well-known/oauth-protected-resource'],
        ['GET', '/.well-known/oauth-protected-resource/mcp/v1/common'],
        ['GET', '/.well-known/oauth-authorization-server'],
        ['GET', '/.well-known/oauth-authorization-server/mcp/v1/common'],
        ['GET', '/.well-known/openid-configuration'],
        ['POST', '/register'],
        ['GET', '/authorize'],
        ['POST', '/token'],
      ] as const) {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
        expect(res.headers.get('www-authenticate'), path).toBeNull();
        const answer = (await res.json()) as Record<string, unknown>;
        // Plain "not found", with a message that names the real problem for clients that show it.
        expect(answer, path).toEqual({
          error: 'not_found',
          message: expect.stringMatching(
            /^This server does not support OAuth: MCP clients authenticate with static API keys .*lacks the mcp_server integration\.$/,
          ),
        });
      }
    });

    it('answers 403 for a foreign Origin and serves its own or none', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${mcpKey}`,
      };
      const evil = await fetch(url, { method: 'POST', headers: { ...headers, origin: 'https://evil.example' }, body });
      expect(evil.status).toBe(403);
      expect(((await evil.json()) as { error: string }).error).toBe('forbidden');
      const own = await fetch(url, { method: 'POST', headers: { ...headers, origin: base }, body });
      expect(own.status).not.toBe(403);
      // DNS rebinding: a foreign Host name on a loopback-bound server is refused, even with its own Origin.
      const rebound = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          url,
          { method: 'POST', headers: { ...headers, host: 'evil.example', origin: 'http://evil.example' } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
      expect(rebound).toBe(403);
    });

    it('never serves OAuth discovery documents', async () => {
      for (const path of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource/mcp/v1/common',
      ]) {
        expect((await fetch(`${base}${path}`)).status).toBe(404);
      }
    });

    it('answers 2025-era requests, plain or not, with the SDK’s JSON: same media type, client’s id back', async () => {
      const post = (body: unknown) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            authorization: `Bearer ${mcpKey}`,
          },
          body: JSON.stringify(body),
        });
      const initialize = await post({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http', version: '1' } },
      });
      const call = await post({ jsonrpc: '2.0', id: 'a7', method: 'tools/call', params: { name: 'svc_list_prompts' } });
      for (const res of [initialize, call]) {
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json');
      }
      expect(((await initialize.json()) as { id: string }).id).toBe('init');
      expect(await call.json()).toMatchObject({ jsonrpc: '2.0', id: 'a7', result: { structuredContent: {} } });
    });

    it('counts MCP requests toward the rate limit and sends the headers', async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${mcpKey}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(1000);
    });
  });

  describe.each(['sdk 1.x (2025-11-25)', 'client 2.x (2026-07-28)'] as const)('with %s', (generation) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connect(generation, url, mcpKey);
    });
    afterAll(async () => client?.close());

    it('lists every tool with description, schemas and hints', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
      for (const tool of tools) {
        expect(tool.description.length, tool.name).toBeGreaterThan(30);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema.type).toBe('object');
        expect(typeof tool.annotations.readOnlyHint).toBe('boolean');
        expect(typeof tool.annotations.destructiveHint).toBe('boolean');
        expect(typeof tool.annotations.idempotentHint).toBe('boolean');
      }
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
      expect(byName.svc_get_memory?.annotations.readOnlyHint).toBe(true);
      expect(byName.svc_delete_memory?.annotations.destructiveHint).toBe(true);
      expect(Object.keys(byName.svc_search_memories?.inputSchema.properties)).toEqual(
        expect.arrayContaining(['search', 'project_name', 'limit']),
      );
    });

    it('creates, searches, reads, updates and deletes memories', async () => {
      const created = await client.callTool({
        name: 'svc_create_memory',
        arguments: {
          text: `Prefer pnpm in ${generation}`,
          project_name: 'acme/web',
          metadata: { priority: 'high', tags: 'tooling, js', category: 'workflow_procedures' },
        },
      });
      expect(created.isError).toBeFalsy();
      const memory = created.structuredContent;
      expect(memory).toMatchObject({
        project_name: 'acme/web',
        metadata: { priority: 'high', tags: ['tooling', 'js'] },
      });
      expect(text(created)).toContain(memory.memory_id);

      const found = await client.callTool({
        name: 'svc_search_memories',
        arguments: { query: 'pnpm', project_name: 'acme/web', limit: '5' },
      });
      expect(found.structuredContent.memories.map((m: { memory_id: string }) => m.memory_id)).toContain(
        memory.memory_id,
      );
      const context = await client.callTool({ name: 'svc_search_memories', arguments: { project_name: 'acme/web' } });
      expect(context.structuredContent.count).toBeGreaterThan(0);

      const read = await client.callTool({ name: 'svc_get_memory', arguments: { memory_id: memory.memory_id } });
      expect(read.structuredContent).toMatchObject({ memory_id: memory.memory_id, text: memory.text });

      const updated = await client.callTool({
        name: 'svc_update_memory',
        arguments: {
          memory_id: memory.memory_id,
          text: 'Prefer pnpm, always',
          metadata: { priority: null, owner: 'me' },
        },
      });
      expect(updated.structuredContent.text).toBe('Prefer pnpm, always');
      expect(updated.structuredContent.metadata).toEqual({
        category: 'workflow_procedures',
        tags: ['tooling', 'js'],
        owner: 'me',
      });

      const deleted = await client.callTool({ name: 'svc_delete_memory', arguments: { memory_id: memory.memory_id } });
      expect(deleted.structuredContent).toEqual({ memory_id: memory.memory_id, deleted: true });
      const gone = await client.callTool({ name: 'svc_get_memory', arguments: { memory_id: memory.memory_id } });
      expect(gone.isError).toBe(true);
      expect(text(gone)).toMatch(/not_found: Memory not found/);
    });

    it('answers an exact duplicate with the stored memory (deduped) and names near duplicates', async () => {
      const project = `dup/${generation.startsWith('sdk') ? 'one' : 'two'}`;
      const create = (args: Record<string, unknown>) =>
        client.callTool({ name: 'svc_create_memory', arguments: { project_name: project, ...args } });
      const first = await create({ text: 'Tag releases with the semantic version number' });
      expect(first.structuredContent.deduped).toBeUndefined();
      const again = await create({ text: 'tag releases with the  semantic version number.' });
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toMatchObject({ memory_id: first.structuredContent.memory_id, deduped: true });
      expect(text(again)).toMatch(/nothing was created/);
      const near = await create({ text: 'Tag releases with the semantic version number and a changelog' });
      expect(near.structuredContent.memory_id).not.toBe(first.structuredContent.memory_id);
      expect(near.structuredContent.possible_duplicates).toEqual([
        { memory_id: first.structuredContent.memory_id, similarity: expect.any(Number) },
      ]);
      expect(text(near)).toContain(`Possible duplicates`);
      const forced = await create({ text: 'Tag releases with the semantic version number', dedupe: false });
      expect(forced.structuredContent.memory_id).not.toBe(first.structuredContent.memory_id);
      expect(forced.structuredContent.deduped).toBeUndefined();
      // Another user's identical memory is never the answer.
      const other = await connect(generation, url, otherMcpKey);
      try {
        const theirs = await other.callTool({
          name: 'svc_create_memory',
          arguments: { project_name: project, text: 'Tag releases with the semantic version number' },
        });
        expect(theirs.structuredContent.memory_id).not.toBe(first.structuredContent.memory_id);
        expect(theirs.structuredContent.deduped).toBeUndefined();
        expect(theirs.structuredContent.possible_duplicates).toBeUndefined();
      } finally {
        await other.close();
      }
    });

    it('reports bad arguments as tool errors with the REST messages, and refuses ambiguity', async () => {
      const bad = await client.callTool({
        name: 'svc_create_memory',
        arguments: { text: ' ', metadata: { priority: 'urgent' } },
      });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/validation_error/);
      const ambiguous = await client.callTool({ name: 'svc_search_memories', arguments: { search: 'a', query: 'b' } });
      expect(ambiguous.isError).toBe(true);
      expect(text(ambiguous)).toMatch(/not two different ones/);
      const unknownField = await client.callTool({ name: 'svc_get_memory', arguments: { memory_id: 'x', extra: 1 } });
      expect(unknownField.isError).toBe(true);
    });

    it('lists a memory’s versions and restores one', async () => {
      const created = await client.callTool({
        name: 'svc_create_memory',
        arguments: { text: `History first ${generation}`, project_name: 'hist', metadata: { priority: 'low' } },
      });
      const id = created.structuredContent.memory_id as string;
      await client.callTool({
        name: 'svc_update_memory',
        arguments: { memory_id: id, text: `History second ${generation}`, metadata: { priority: 'high' } },
      });
      const listed = await client.callTool({ name: 'svc_list_memory_versions', arguments: { memory_id: id } });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toMatchObject({ memory_id: id, total: 2, next_cursor: null });
      const versions = listed.structuredContent.versions as Array<Record<string, Json>>;
      expect(versions.map((v) => [v.version, v.current])).toEqual([
        [2, true],
        [1, false],
      ]);
      expect(text(listed)).toContain(`v1 `);
      expect(text(listed)).toContain(`History first ${generation}`);
      // A page of one, then the cursor (given as text, as models send it).
      const first = await client.callTool({
        name: 'svc_list_memory_versions',
        arguments: { memory_id: id, limit: 1 },
      });
      expect(first.structuredContent.next_cursor).toBe('1');
      expect(text(first)).toMatch(/cursor "1"/);
      const next = await client.callTool({
        name: 'svc_list_memory_versions',
        arguments: { memory_id: id, limit: '1', cursor: '1' },
      });
      expect((next.structuredContent.versions as Array<Record<string, Json>>).map((v) => v.version)).toEqual([1]);

      const restored = await client.callTool({ name: 'svc_restore_memory', arguments: { memory_id: id, version: 1 } });
      expect(restored.isError).toBeFalsy();
      expect(restored.structuredContent).toMatchObject({
        memory_id: id,
        version: 3,
        text: `History first ${generation}`,
        project_name: 'hist',
        metadata: { priority: 'low' },
      });
      expect(text(restored)).toMatch(/^Version 1 restored as version 3/);
      const read = await client.callTool({ name: 'svc_get_memory', arguments: { memory_id: id } });
      expect(read.structuredContent.text).toBe(`History first ${generation}`);

      const missing = await client.callTool({ name: 'svc_restore_memory', arguments: { memory_id: id, version: 99 } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/Memory version not found/);
      const bad = await client.callTool({ name: 'svc_restore_memory', arguments: { memory_id: id, version: 0 } });
      expect(bad.isError).toBe(true);
      const badCursor = await client.callTool({
        name: 'svc_list_memory_versions',
        arguments: { memory_id: id, cursor: 'x' },
      });
      expect(badCursor.isError).toBe(true);
    });

    it('never shows another user’s memory: "not found", never data', async () => {
      const other = await connect(generation, url, otherMcpKey);
      try {
        const secret = await other.callTool({ name: 'svc_create_memory', arguments: { text: 'other user secret' } });
        const id = secret.structuredContent.memory_id;
        for (const name of ['svc_get_memory', 'svc_delete_memory']) {
          const res = await client.callTool({ name, arguments: { memory_id: id } });
          expect(res.isError, name).toBe(true);
          expect(text(res)).toMatch(/not_found/);
          expect(JSON.stringify(res)).not.toContain('other user secret');
        }
        const update = await client.callTool({
          name: 'svc_update_memory',
          arguments: { memory_id: id, text: 'pwned' },
        });
        expect(update.isError).toBe(true);
        await other.callTool({ name: 'svc_update_memory', arguments: { memory_id: id, text: 'other user secret 2' } });
        for (const [name, args] of [
          ['svc_list_memory_versions', { memory_id: id }],
          ['svc_restore_memory', { memory_id: id, version: 1 }],
        ] as const) {
          const res = await client.callTool({ name, arguments: args });
          expect(res.isError, name).toBe(true);
          expect(text(res)).toMatch(/not_found/);
          expect(JSON.stringify(res)).not.toContain('other user secret');
        }
        const theirs = await other.callTool({ name: 'svc_list_memory_versions', arguments: { memory_id: id } });
        expect(theirs.structuredContent.total).toBe(2);
        const search = await client.callTool({ name: 'svc_search_memories', arguments: { search: 'secret' } });
        expect(JSON.stringify(search)).not.toContain('other user secret');
      } finally {
        await other.close();
      }
    });

    it('lists and renders prompts exposed to MCP, as tools and as MCP prompts', async () => {
      const suffix = generation.startsWith('sdk') ? 'one' : 'two';
      const create = (payload: Record<string, unknown>) =>
        t.request(owner.key, { method: 'POST', url: '/api/v1/prompts', payload });
      await create({
        title: `Style ${suffix}`,
        slug: `style-${suffix}`,
        content: 'Write {{language}} idiomatically.',
        available_in_mcp: true,
      });
      await create({
        title: `Review ${suffix}`,
        slug: `review-${suffix}`,
        content: `Review this {{language}} diff. @style-${suffix}`,
        description: 'Code review',
        available_in_mcp: true,
      });
      await create({ title: `Hidden ${suffix}`, slug: `hidden-${suffix}`, content: 'not for MCP' });
      await create({
        title: `Loop ${suffix}`,
        slug: `loop-${suffix}`,
        content: `@loop-${suffix}`,
        available_in_mcp: true,
      });

      const { prompts } = await client.listPrompts();
      const review = prompts.find((p) => p.name === `review-${suffix}`);
      expect(review).toMatchObject({
        title: `Review ${suffix}`,
        description: 'Code review',
        arguments: [{ name: 'language', required: true }],
      });
      expect(prompts.map((p) => p.name)).not.toContain(`hidden-${suffix}`);

      const got = await client.getPrompt({ name: `review-${suffix}`, arguments: { language: 'Go' } });
      expect(got.messages[0].content.text).toBe('Review this Go diff. Write Go idiomatically.');
      await expect(client.getPrompt({ name: `hidden-${suffix}` })).rejects.toThrow(/not found/i);
      // Listed, so usable: the reference that forms a cycle stays as written (REST render refuses it).
      expect(prompts.map((p) => p.name)).toContain(`loop-${suffix}`);
      const loop = await client.getPrompt({ name: `loop-${suffix}` });
      expect(loop.messages[0].content.text).toBe(`@loop-${suffix}`);

      const listed = await client.callTool({ name: 'svc_list_prompts', arguments: {} });
      expect(listed.structuredContent.prompts.map((p: { slug: string }) => p.slug)).toContain(`review-${suffix}`);
      const rendered = await client.callTool({
        name: 'svc_get_prompt',
        arguments: { name: `review-${suffix}`, variables: { language: 'Rust' } },
      });
      expect(rendered.structuredContent).toMatchObject({
        content: 'Review this Rust diff. Write Rust idiomatically.',
        variables_used: ['language'],
        references_resolved: [`@style-${suffix}`],
      });
      const partial = await client.callTool({ name: 'svc_get_prompt', arguments: { slug: `review-${suffix}` } });
      expect(partial.structuredContent.content).toContain('{{language}}');
      const hidden = await client.callTool({ name: 'svc_get_prompt', arguments: { slug: `hidden-${suffix}` } });
      expect(hidden.isError).toBe(true);
    });

    it('shows variable-schema descriptions and required flags as MCP prompt arguments, and applies them', async () => {
      const suffix = generation.startsWith('sdk') ? 'one' : 'two';
      const created = await t.request(owner.key, {
        method: 'POST',
        url: '/api/v1/prompts',
        payload: {
          title: `Typed ${suffix}`,
          slug: `typed-${suffix}`,
          content: 'Explain {{topic}} in a {{tone}} tone{{suffix}}. Audience: {{audience}}.',
          available_in_mcp: true,
          variable_schema: {
            topic: { description: 'What to explain' },
            tone: { description: 'Voice of the answer', enum: ['formal', 'casual'], default: 'casual' },
            suffix: { required: false },
          },
        },
      });
      expect(created.statusCode).toBe(201);

      const { prompts } = await client.listPrompts();
      const typed = prompts.find((p) => p.name === `typed-${suffix}`);
      expect(typed?.arguments).toEqual([
        { name: 'topic', description: 'What to explain', required: true },
        { name: 'tone', description: 'Voice of the answer. One of: formal, casual. Default: casual.', required: false },
        { name: 'suffix', required: false },
        { name: 'audience', required: true },
      ]);

      // Clients without MCP prompt support see the same through svc_list_prompts.
      const listed = await client.callTool({ name: 'svc_list_prompts', arguments: { search: `typed` } });
      const entry = listed.structuredContent.prompts.find((p: { slug: string }) => p.slug === `typed-${suffix}`);
      expect(entry.variables).toEqual(typed?.arguments);
      expect(listed.content[0].text).toContain(
        'variables: topic (required): What to explain; tone: Voice of the answer. One of: formal, casual. Default: casual.; suffix; audience (required)',
      );

      const got = await client.getPrompt({ name: `typed-${suffix}`, arguments: { topic: 'MCP', audience: 'devs' } });
      expect(got.messages[0].content.text).toBe('Explain MCP in a casual tone. Audience: devs.');
      await expect(
        client.getPrompt({ name: `typed-${suffix}`, arguments: { topic: 'MCP', tone: 'angry', audience: 'x' } }),
      ).rejects.toThrow(/one of: formal, casual|not allowed tone/i);

      const tool = await client.callTool({
        name: 'svc_get_prompt',
        arguments: { slug: `typed-${suffix}`, variables: { topic: 'SQL', tone: 'formal' } },
      });
      expect(tool.structuredContent).toMatchObject({
        content: 'Explain SQL in a formal tone. Audience: {{audience}}.',
        variables_used: ['topic', 'tone', 'suffix'],
        variables_missing: ['audience'],
      });
    });

    it('lists prompts with broken references and renders them with the broken reference as written', async () => {
      const suffix = generation.startsWith('sdk') ? 'one' : 'two';
      const create = (payload: Record<string, unknown>) =>
        t.request(owner.key, { method: 'POST', url: '/api/v1/prompts', payload });
      await create({ title: 'Tone', slug: `tone-${suffix}`, content: 'Be brief.' });
      const made = await create({
        title: `Broken ${suffix}`,
        slug: `broken-${suffix}`,
        content: `Use @gone-${suffix} and @tone-${suffix}`,
        available_in_mcp: true,
      });
      expect(made.statusCode).toBe(201);

      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain(`broken-${suffix}`);
      const got = await client.getPrompt({ name: `broken-${suffix}` });
      expect(got.messages[0].content.text).toBe(`Use @gone-${suffix} and Be brief.`);
      const tool = await client.callTool({ name: 'svc_get_prompt', arguments: { slug: `broken-${suffix}` } });
      expect(tool.structuredContent).toMatchObject({
        content: `Use @gone-${suffix} and Be brief.`,
        references_resolved: [`@tone-${suffix}`],
        references_broken: [`@gone-${suffix}`],
      });
      // REST render stays strict about it.
      const rest = await t.request(owner.key, { method: 'POST', url: `/api/v1/prompts/broken-${suffix}/render` });
      expect(rest.statusCode).toBe(400);
    });

    it('answers names and addresses that cannot exist as not found, on every database (no query is made)', async () => {
      for (const name of ['a\u0000b', 'Not A Slug', 'x'.repeat(5000)]) {
        await expect(client.getPrompt({ name })).rejects.toThrow(/Prompt not found/);
      }
      await expect(client.readResource({ uri: 'artifact://a%00b/notes' })).rejects.toThrow(
        /not found|Not an artifact/i,
      );
      // A hostile name or address is not echoed back whole.
      for (const call of [
        () => client.getPrompt({ name: 'x'.repeat(100_000) }),
        () => client.readResource({ uri: `artifact://${'a/'.repeat(50_000)}b` }),
      ]) {
        const error = await call().then(
          () => undefined,
          (e: Error) => e,
        );
        expect(error?.message.length).toBeLessThan(1000);
      }
    });

    it('answers prompts/get without a required argument with -32602, naming it', async () => {
      const suffix = generation.startsWith('sdk') ? 'one' : 'two';
      const made = await t.request(owner.key, {
        method: 'POST',
        url: '/api/v1/prompts',
        payload: {
          title: `Needs ${suffix}`,
          slug: `needs-${suffix}`,
          content: 'About {{topic}} for {{audience}} in {{tone}}{{extra}}',
          available_in_mcp: true,
          variable_schema: { audience: { default: 'everyone' }, extra: { required: false } },
        },
      });
      expect(made.statusCode).toBe(201);
      const { prompts } = await client.listPrompts();
      expect(prompts.find((p) => p.name === `needs-${suffix}`)?.arguments).toEqual([
        { name: 'topic', required: true },
        { name: 'audience', description: 'Default: everyone.', required: false },
        { name: 'tone', required: true },
        { name: 'extra', required: false },
      ]);
      await expect(client.getPrompt({ name: `needs-${suffix}`, arguments: { topic: 'x' } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Missing required arguments: tone'),
      });
      await expect(client.getPrompt({ name: `needs-${suffix}` })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Missing required arguments: topic, tone'),
      });
      const got = await client.getPrompt({ name: `needs-${suffix}`, arguments: { topic: 'x', tone: 'dry' } });
      expect(got.messages[0].content.text).toBe('About x for everyone in dry');
    });

    it('refuses the 6 × 40 amplification on prompts/get and svc_get_prompt with the message REST gives', async () => {
      const base = `amp-${generation.startsWith('sdk') ? 'one' : 'two'}`;
      for (let i = 5; i >= 0; i--) {
        const content = i === 5 ? 'leaf' : Array.from({ length: 40 }, () => `@${base}-${i + 1}`).join(' ');
        const made = await t.request(owner.key, {
          method: 'POST',
          url: '/api/v1/prompts',
          payload: { title: `Amp ${i}`, slug: `${base}-${i}`, content, available_in_mcp: true },
        });
        expect(made.statusCode).toBe(201);
      }
      const rest = await t.request(owner.key, { method: 'POST', url: `/api/v1/prompts/${base}-0/render`, payload: {} });
      expect(rest.statusCode).toBe(400);
      const message = rest.json().message as string;
      expect(message).toMatch(
        new RegExp(
          `^The rendered prompt exceeds the limit of 1,000,000 characters while expanding @${base}-0 → @${base}-1`,
        ),
      );

      await expect(client.getPrompt({ name: `${base}-0` })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(message),
      });
      const tool = await client.callTool({ name: 'svc_get_prompt', arguments: { slug: `${base}-0` } });
      expect(tool.isError).toBe(true);
      expect(text(tool)).toBe(`validation_error: ${message}\nreferences: ${message}`);
    });

    it('saves, lists and reads artifacts, in pieces and as resources', async () => {
      const project = generation.startsWith('sdk') ? 'docs/legacy' : 'docs/modern';
      const saved = await client.callTool({
        name: 'svc_save_artifact',
        arguments: { project, title: 'Runbook', content: '0123456789abcdefghij', labels: 'ops,runbook' },
      });
      expect(saved.structuredContent).toEqual({ project, slug: 'runbook', version: 1, created: true });
      const again = await client.callTool({
        name: 'svc_save_artifact',
        arguments: { project, slug: 'runbook', content: '0123456789ABCDEFGHIJ' },
      });
      expect(again.structuredContent).toEqual({ project, slug: 'runbook', version: 2, created: false });

      const listed = await client.callTool({ name: 'svc_list_artifacts', arguments: { project } });
      expect(listed.structuredContent.artifacts.map((a: { slug: string }) => a.slug)).toEqual(['runbook']);
      const piece = await client.callTool({
        name: 'svc_get_artifact',
        arguments: { project, slug: 'runbook', offset: 5, length: 10 },
      });
      expect(piece.structuredContent).toMatchObject({
        content: '56789ABCDE',
        offset: 5,
        total_length: 20,
        truncated: true,
        version: 2,
      });
      expect(text(piece)).toContain('continue with offset 15');

      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain(`artifact://${project}/runbook`);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates[0]?.uriTemplate).toBe('artifact://{project}/{slug}');
      const read = await client.readResource({ uri: `artifact://${project}/runbook` });
      expect(read.contents[0]).toMatchObject({
        uri: `artifact://${project}/runbook`,
        mimeType: 'text/markdown',
        text: '0123456789ABCDEFGHIJ',
      });
      await expect(client.readResource({ uri: `artifact://${project}/missing` })).rejects.toThrow();
      const noTitle = await client.callTool({ name: 'svc_save_artifact', arguments: { project, content: 'x' } });
      expect(noTitle.isError).toBe(true);
      expect(text(noTitle)).toMatch(/title/);
    });

    it('reads back over REST exactly what it wrote over MCP, and the other way round', async () => {
      const written = await client.callTool({
        name: 'svc_create_memory',
        // Per generation: the same text twice for one user would be an exact duplicate (deduped).
        arguments: {
          text: `Round trip ✓ ${generation}`,
          project_name: 'rt',
          metadata: { tags: ['a'], custom: { n: 1 } },
        },
      });
      const overRest = await t.request(owner.key, {
        method: 'GET',
        url: `/api/v1/memories/${written.structuredContent.memory_id}`,
      });
      const { last_accessed_at: _a, ...restView } = overRest.json();
      const { last_accessed_at: _b, ...mcpView } = written.structuredContent;
      expect(restView).toEqual(mcpView);

      const restCreated = await t.request(owner.key, {
        method: 'POST',
        url: '/api/v1/memories',
        payload: { text: `From REST ${generation}`, metadata: { priority: 'low' } },
      });
      const { message: _m, last_accessed_at: _c, ...fromRest } = restCreated.json();
      const viaMcp = await client.callTool({ name: 'svc_get_memory', arguments: { memory_id: fromRest.memory_id } });
      const { last_accessed_at: _d, ...mcpRead } = viaMcp.structuredContent;
      expect(mcpRead).toEqual(fromRest);
    });
  });
});
