import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type ToolClient = {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, Json>>;
  close(): Promise<void>;
};

/** A real client of each generation, reporting its clientInfo (name and version) the way its SDK does. */
async function connect(generation: 'legacy' | 'modern', url: string, key: string, name: string, version: string) {
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  if (generation === 'legacy') {
    const client = new LegacyClient({ name, version });
    await client.connect(new LegacyTransport(new URL(url), { requestInit }));
    return client as unknown as ToolClient;
  }
  const client = new ModernClient({ name, version }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(new URL(url), { requestInit }));
  return client as unknown as ToolClient;
}

describe.each(DIALECTS)('audit trail over MCP (%s)', (dialect) => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/mcp/v1/common`;
  });
  afterAll(async () => t?.close());

  const trail = async (key: string, objectId: string) => {
    const res = await t.request(key, { method: 'GET', url: `/api/v1/audit?object_id=${objectId}` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().events as Array<Record<string, Json>>).reverse();
  };

  for (const [generation, name, version] of [
    ['legacy', 'legacy-agent', '1.4.2'],
    ['modern', 'modern-agent', '2.0.7'],
  ] as const) {
    it(`records the ${generation} client's name and version with the key and the mcp_server integration`, async () => {
      const owner = await t.user();
      const mcp = await t.key(owner.email, ['mcp_server']);
      const client = await connect(generation, url, mcp.key, name, version);
      try {
        const created = await client.callTool({ name: 'svc_create_memory', arguments: { text: `from ${name}` } });
        const id = (created.structuredContent as { memory_id: string }).memory_id;
        await client.callTool({ name: 'svc_update_memory', arguments: { memory_id: id, text: `changed by ${name}` } });
        await client.callTool({ name: 'svc_delete_memory', arguments: { memory_id: id } });
        const saved = await client.callTool({
          name: 'svc_save_artifact',
          arguments: { project: 'notes', slug: 'log', title: 'Log', content: 'one' },
        });
        expect(saved.isError ?? false).toBe(false);

        const rows = await trail(owner.key, id);
        expect(rows.map((e) => e.action)).toEqual(['created', 'updated', 'deleted']);
        for (const row of rows) {
          expect(row).toMatchObject({
            object_type: 'memory',
            surface: 'mcp',
            key_id: mcp.keyId,
            integration: 'mcp_server',
            client_name: name,
            client_version: version,
          });
        }
        const artifacts = await t.request(owner.key, { method: 'GET', url: '/api/v1/audit?object_type=artifact' });
        expect(artifacts.json().events).toMatchObject([
          { action: 'created', object_handle: 'notes/log', surface: 'mcp', client_name: name },
        ]);
      } finally {
        await client.close();
      }
    });
  }
});
