import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * Internal failures never reach a client (issue 12 §6): a fault injected into a service (an error whose
 * message carries SQL and a path, as a driver's would) is logged under the request id, and every surface
 * answers with that id alone.
 */
const SECRET = 'SQLITE_ERROR: no such column: password_hash in SELECT * FROM users at /srv/cairn/db.sqlite';

describe('internal errors carry only a request id', () => {
  let t: TestApp;
  let base: string;
  let client: Client;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const owner = await t.user();
    const { key } = await t.key(owner.email, ['mcp_server']);
    const fail = async () => {
      throw new Error(SECRET);
    };
    // Fault injection: the real services, with these calls failing as a broken driver would.
    Object.assign(t.container.services.memories, { get: fail });
    Object.assign(t.container.services.prompts, { render: fail });
    Object.assign(t.container.services.artifacts, { get: fail });
    client = new Client({ name: 'internal-errors', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp/v1/common`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('a tool answers a tool error with the request id, never the message', async () => {
    const result = await client.callTool({
      name: 'svc_get_memory',
      arguments: { memory_id: 'mem_01JD0000000000000000000000' },
    });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toMatch(/^internal_error: An unexpected error occurred \(request [\w-]+\)$/);
    expect(text).not.toMatch(/SQL|password|\/srv/);
  });

  it('prompts/get and resources/read answer a JSON-RPC internal error with the id only', async () => {
    for (const call of [
      () => client.getPrompt({ name: 'anything' }),
      () => client.readResource({ uri: 'artifact://acme/notes' }),
    ]) {
      const error = await call().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error?.message).toMatch(/An unexpected error occurred \(request [\w-]+\)/);
      expect(error?.message).not.toMatch(/SQL|password|\/srv/);
    }
  });

  it('REST answers 500 with the id, and the id is the response header', async () => {
    const owner = await t.user();
    const res = await t.request(owner.key, { method: 'GET', url: '/api/v1/memories/mem_01JD0000000000000000000000' });
    expect(res.statusCode).toBe(500);
    const id = res.headers['x-request-id'];
    expect(res.json()).toEqual({
      error: 'internal_error',
      message: `An unexpected error occurred (request ${id})`,
      request_id: id,
    });
  });
});
