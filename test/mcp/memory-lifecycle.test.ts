import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type Result = Record<string, Json> & { structuredContent: Record<string, Json>; isError?: boolean };
type AnyClient = {
  listTools(): Promise<{ tools: Array<Record<string, Json>> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Result>;
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

const text = (result: Result) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

/** Issue 18, items 1–3 over MCP, with both client generations, on both databases. */
describe.each(DIALECTS)('memory lifecycle over MCP (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let url: string;
  let keys: { mine: string; theirs: string };

  beforeAll(async () => {
    t = await createTestApp(dialect, {}, { clock });
    url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/mcp/v1/common`;
    const owner = await t.user();
    const other = await t.user();
    keys = {
      mine: (await t.key(owner.email, ['mcp_server'])).key,
      theirs: (await t.key(other.email, ['mcp_server'])).key,
    };
  });
  afterAll(async () => t?.close());

  describe.each(GENERATIONS)('with %s', (generation) => {
    let client: AnyClient;
    let other: AnyClient;
    const p = `mcp/${generation.startsWith('sdk') ? 'legacy' : 'modern'}`;
    beforeAll(async () => {
      client = await connect(generation, url, keys.mine);
      other = await connect(generation, url, keys.theirs);
    });
    afterAll(async () => {
      await client?.close();
      await other?.close();
    });

    const call = (name: string, args: Record<string, unknown>, as = client) => as.callTool({ name, arguments: args });
    const searchIds = async (search: string) =>
      (
        (await call('svc_search_memories', { search, project_name: p })).structuredContent.memories as Array<{
          memory_id: string;
        }>
      ).map((m) => m.memory_id);
    const contextIds = async () => {
      const block = (await call('svc_get_context', { project_name: p })).structuredContent as Record<
        string,
        Array<{ memory_id: string }>
      >;
      return {
        pinned: (block.pinned_memories ?? []).map((m) => m.memory_id),
        all: [...(block.pinned_memories ?? []), ...(block.relevant_memories ?? [])].map((m) => m.memory_id),
      };
    };

    it('describes supersedes, expiry and pin to a model', async () => {
      const { tools } = await client.listTools();
      for (const name of ['svc_create_memory', 'svc_update_memory']) {
        const tool = tools.find((x) => x.name === name) as { description: string; inputSchema: { properties: object } };
        expect(tool.description).toMatch(/supersedes/);
        expect(tool.description).toMatch(/fact changed/);
        expect(Object.keys(tool.inputSchema.properties)).toEqual(
          expect.arrayContaining(['supersedes', 'expires_at', 'ttl_seconds', 'pinned']),
        );
      }
    });

    it('expired and superseded memories leave search and context, stay readable by id; pinned stays first', async () => {
      const temp = await call('svc_create_memory', {
        text: 'Temporary proxy workaround on port 8081',
        project_name: p,
        ttl_seconds: 30,
      });
      expect(temp.isError).toBeFalsy();
      const tempId = temp.structuredContent.memory_id as string;
      const old = await call('svc_create_memory', { text: 'Proxy config lives in nginx.conf', project_name: p });
      const oldId = old.structuredContent.memory_id as string;
      const next = await call('svc_create_memory', {
        text: 'Proxy config moved to Caddyfile',
        project_name: p,
        supersedes: [oldId],
      });
      const nextId = next.structuredContent.memory_id as string;
      const pin = await call('svc_create_memory', {
        text: 'Proxy changes need a second reviewer',
        project_name: p,
        pinned: true,
      });
      const pinId = pin.structuredContent.memory_id as string;
      expect(pin.structuredContent.pinned).toBe(true);

      clock.advance(31_000);
      const found = await searchIds('proxy');
      expect(found).toEqual(expect.arrayContaining([nextId, pinId]));
      expect(found).not.toContain(oldId);
      expect(found).not.toContain(tempId);
      const block = await contextIds();
      expect(block.pinned[0]).toBe(pinId);
      expect(block.all).not.toContain(oldId);
      expect(block.all).not.toContain(tempId);
      const readOld = await call('svc_get_memory', { memory_id: oldId });
      expect(readOld.structuredContent.superseded_by).toBe(nextId);
      expect(text(readOld)).toContain(`superseded by ${nextId}`);
      const readTemp = await call('svc_get_memory', { memory_id: tempId });
      expect(readTemp.structuredContent.expires_at).toBe(temp.structuredContent.expires_at);

      // The link removed on the newer memory: the older is back.
      const released = await call('svc_update_memory', { memory_id: nextId, supersedes: [] });
      expect(released.isError).toBeFalsy();
      expect(await searchIds('nginx')).toEqual([oldId]);
      clock.set('2026-11-21T10:00:00.000Z');
    });

    it("a supersedes naming another user's memory is not_found and changes nothing", async () => {
      const theirs = await call(
        'svc_create_memory',
        { text: 'Their private deployment key rotation', project_name: p },
        other,
      );
      const theirId = theirs.structuredContent.memory_id as string;
      const refused = await call('svc_create_memory', {
        text: 'My rotation note',
        project_name: p,
        supersedes: [theirId],
      });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/not_found/);
      expect(text(refused)).not.toContain('private');
      expect(await searchIds('rotation')).toEqual([]);
      const mine = await call('svc_create_memory', { text: 'My own rotation note', project_name: p });
      const onUpdate = await call('svc_update_memory', {
        memory_id: mine.structuredContent.memory_id,
        supersedes: [theirId],
      });
      expect(onUpdate.isError).toBe(true);
      const theirsAfter = await call('svc_get_memory', { memory_id: theirId }, other);
      expect(theirsAfter.structuredContent.superseded_by).toBeNull();
      expect(
        (
          (await call('svc_search_memories', { search: 'rotation', project_name: p }, other)).structuredContent
            .memories as Array<{ memory_id: string }>
        ).map((m) => m.memory_id),
      ).toEqual([theirId]);
    });
  });
});
