import {
  type AuthInfo,
  classifyInboundRequest,
  type JSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/common/actor.js';
import type { FailureLog } from '../../src/mcp/errors.js';
import { serverFactory } from '../../src/mcp/handlers.js';
import {
  legacyHeaderVersions,
  plainRequests,
  SharedJsonTransport,
  sharedLegacyServer,
} from '../../src/mcp/legacy-json.js';
import { createMcpService, type McpAnswer, type McpService } from '../../src/mcp/server.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

/**
 * Plain 2025-era requests are answered by one long-lived server shared by every caller (mcp/legacy-json.ts).
 * These tests hold it to the SDK's per-request stateless pattern, which it replaces for speed: the same
 * routing decision, the same bytes for the same request, and no caller ever sees another's answer.
 */

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const LEGACY_VERSIONS = legacyHeaderVersions(SUPPORTED_PROTOCOL_VERSIONS);

const failures: unknown[] = [];
function authInfo(actor: Actor): AuthInfo {
  const log: FailureLog = { requestId: 'req-test', error: (fields) => failures.push(fields) };
  return { token: 'api-key', clientId: actor.keyId ?? 'unknown', scopes: ['mcp_server'], extra: { actor, log } };
}

// ---- Generated traffic: valid, near-valid and hostile JSON-RPC, as the endpoint may receive it ----------

/** Mostly `usual`, sometimes one of `unusual`: valid traffic with a fair share of everything else. */
const mostly = <T>(usual: fc.Arbitrary<T>, ...unusual: T[]) =>
  fc.oneof({ weight: 4, arbitrary: usual }, { weight: 1, arbitrary: fc.constantFrom(...unusual) });

const ids = mostly(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', '1', '')), 1.5, null);
const names = fc.constantFrom('svc_get_prompt', 'svc_list_prompts', 'svc_get_artifact', 'svc_nope', 'svc_get_memory');
const args = fc.oneof(
  fc.constant(undefined),
  fc.constant({}),
  fc.record({ slug: fc.constantFrom('style', 'missing', 'Not A Slug') }),
  fc.record({ name: fc.constantFrom('style', 'hidden'), variables: fc.constant({ language: 'Go' }) }),
  fc.record({ project: fc.constant('docs'), slug: fc.constant('runbook'), offset: fc.constantFrom(0, 3, -1) }),
  fc.record({ memory_id: fc.constantFrom('mem_nope', '', 'x'.repeat(300)) }),
  fc.constant('not an object'),
);
const meta = mostly<Record<string, unknown> | undefined>(
  fc.constantFrom(undefined, {}, { progressToken: 7 }),
  { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  { 'io.modelcontextprotocol/protocolVersion': 42 },
);
const withMeta = (params: Record<string, unknown> | undefined, m: unknown) =>
  m === undefined ? params : { ...(params ?? {}), _meta: m };
const request = fc.oneof(
  fc.record({ id: ids, name: names, args, m: meta }).map(({ id, name, args, m }) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: withMeta(args === undefined ? { name } : { name, arguments: args }, m),
  })),
  fc
    .record({
      id: ids,
      method: fc.constantFrom(
        'ping',
        'tools/list',
        'prompts/list',
        'resources/list',
        'resources/templates/list',
        'logging/setLevel',
        'completion/complete',
        'nope/nope',
        'initialize',
      ),
      m: meta,
    })
    .map(({ id, method, m }) => ({ jsonrpc: '2.0', id, method, ...(m !== undefined && { params: { _meta: m } }) })),
  fc.record({ id: ids, name: fc.constantFrom('style', 'hidden', 'x'.repeat(2000)) }).map(({ id, name }) => ({
    jsonrpc: '2.0',
    id,
    method: 'prompts/get',
    params: { name },
  })),
  fc
    .record({ id: ids, uri: fc.constantFrom('artifact://docs/runbook', 'artifact://docs/missing', 'nope') })
    .map(({ id, uri }) => ({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri } })),
);
const oddity = fc.constantFrom<unknown>(
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  // Cancelling a request of the same batch would leave the SDK's JSON answer waiting forever (both ways).
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'ping', extra: true },
  { id: 1, method: 'ping' },
  'ping',
  null,
  [],
  {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  },
);
const idOf = (m: unknown) => (typeof m === 'object' && m !== null && 'id' in m ? m.id : undefined);
const sameId = (a: unknown, b: unknown) => idOf(a) !== undefined && idOf(a) === idOf(b);
const message = fc.oneof({ weight: 8, arbitrary: request }, { weight: 1, arbitrary: oddity });
const body = fc.oneof(
  { weight: 3, arbitrary: message },
  // Distinct ids: with two requests under one id the SDK's answer is whichever finishes first.
  { weight: 2, arbitrary: fc.uniqueArray(message, { minLength: 1, maxLength: 5, comparator: sameId }) },
  {
    weight: 1,
    arbitrary: fc.constant(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))),
  },
);
const headers = fc.record({
  'content-type': mostly(fc.constantFrom('application/json', 'application/json; charset=utf-8'), 'text/plain'),
  accept: mostly(fc.constant('application/json, text/event-stream'), 'application/json', '*/*'),
  'mcp-protocol-version': mostly(
    fc.constantFrom(undefined, '2025-11-25', '2025-03-26'),
    ' 2025-06-18 ',
    '2024-01-01',
    '2026-07-28',
    'banana',
  ),
});
const httpRequest = fc.record({ headers, body });

describe('which requests the shared server answers', () => {
  it('only what the SDK routes to its 2025-era serving, only single requests or batches of them, never initialize', () => {
    fc.assert(
      fc.property(httpRequest, ({ headers, body }) => {
        const plain = plainRequests(headers, body, LEGACY_VERSIONS);
        if (plain === undefined) return;
        const sdk = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: headers['mcp-protocol-version'],
          body,
        });
        expect(sdk.kind).toBe('legacy');
        expect(plain.length).toBe(Array.isArray(body) ? body.length : 1);
        expect(plain.every((m: JSONRPCRequest) => m.method !== 'initialize' && m.id !== undefined)).toBe(true);
        expect(new Set(plain.map((m) => m.id)).size).toBe(plain.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('the benchmark’s request and a batch of tool calls are plain; a 2026-07-28 envelope and initialize are not', () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_get_memory', arguments: {} } };
    expect(plainRequests(HEADERS, call, LEGACY_VERSIONS)).toHaveLength(1);
    expect(plainRequests(HEADERS, [call, { ...call, id: 2 }], LEGACY_VERSIONS)).toHaveLength(2);
    expect(plainRequests(HEADERS, [call, call], LEGACY_VERSIONS)).toBeUndefined(); // duplicate ids
    const modern = {
      ...call,
      params: { ...call.params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    };
    expect(plainRequests(HEADERS, modern, LEGACY_VERSIONS)).toBeUndefined();
    expect(plainRequests({ ...HEADERS, 'mcp-protocol-version': '2026-07-28' }, call, LEGACY_VERSIONS)).toBeUndefined();
    expect(plainRequests(HEADERS, { ...call, method: 'initialize' }, LEGACY_VERSIONS)).toBeUndefined();
  });
});

describe('SharedJsonTransport', () => {
  it('restores each client’s id, keeps answers in request order, and answers what is in flight at close', async () => {
    const transport = new SharedJsonTransport();
    const received: JSONRPCRequest[] = [];
    transport.onmessage = (m) => void received.push(m as JSONRPCRequest);
    const auth = authInfo({ userId: 'u', integrations: new Set(), via: 'mcp' });
    const a = transport.exchange(
      [
        { jsonrpc: '2.0', id: 'x', method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'ping' },
      ],
      auth,
    );
    const b = transport.exchange([{ jsonrpc: '2.0', id: 1, method: 'ping' }], auth);
    expect(new Set(received.map((m) => m.id)).size).toBe(3); // the two id-1 requests do not meet
    // Answered out of order; a stray id and a notification are ignored.
    await transport.send({ jsonrpc: '2.0', id: received[1]?.id as number, result: { n: 2 } });
    await transport.send({ jsonrpc: '2.0', id: 999_999, result: {} });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    await transport.send({ jsonrpc: '2.0', id: received[0]?.id as number, result: { n: 1 } });
    expect(await a).toEqual([
      { jsonrpc: '2.0', id: 'x', result: { n: 1 } },
      { jsonrpc: '2.0', id: 1, result: { n: 2 } },
    ]);
    await transport.close();
    expect(await b).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal server error' } }]);
    await expect(transport.exchange([{ jsonrpc: '2.0', id: 2, method: 'ping' }], auth)).rejects.toThrow(/closed/);
  });
});

describe.each(DIALECTS)('the shared server against the SDK’s per-request serving (%s)', (dialect) => {
  let t: TestApp;
  let shared: McpService;
  let reference: McpService;
  let owner: Actor;
  let other: Actor;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    const actorOf = async (slug: string, content: string): Promise<Actor> => {
      const user = await t.user({ integrations: ['mcp_server', 'ai_tools'] });
      const post = (url: string, payload: Record<string, unknown>) =>
        t.request(user.key, { method: 'POST', url, payload });
      await post('/api/v1/prompts', { title: 'Style', slug, content, available_in_mcp: true });
      await post('/api/v1/prompts', { title: 'Hidden', slug: 'hidden', content: 'not for MCP' });
      await post('/api/v1/artifacts', { project: 'docs', title: 'Runbook', content: `${content} runbook` });
      return { userId: user.userId, integrations: new Set(['mcp_server']), via: 'mcp', keyId: user.keyId };
    };
    owner = await actorOf('style', 'Write {{language}} idiomatically.');
    other = await actorOf('style', 'Other user’s style for {{language}}.');
    shared = await createMcpService(t.container);
    reference = await createMcpService(t.container, { shared: false });
  });
  afterAll(async () => {
    await shared?.close();
    await reference?.close();
    await t?.close();
  });

  const serve = (service: McpService, h: Record<string, string | undefined>, b: unknown, actor = owner) =>
    service.serve({ url: 'http://127.0.0.1/mcp/v1/common', headers: h, body: b, authInfo: authInfo(actor) });
  /** What a client sees: status, media type and body bytes (an SSE stream read whole). */
  const seen = async (answer: McpAnswer) => ({
    status: answer.status,
    type: answer.headers['content-type'],
    body:
      answer.body === null || typeof answer.body === 'string' ? answer.body : await new Response(answer.body).text(),
  });

  it('answers generated requests with exactly the bytes of the per-request SDK server', async () => {
    let plain = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(httpRequest, async ({ headers, body }) => {
        runs++;
        if (plainRequests(headers, body, LEGACY_VERSIONS)) plain++;
        const [fast, sdk] = await Promise.all([serve(shared, headers, body), serve(reference, headers, body)]);
        expect(await seen(fast)).toEqual(await seen(sdk));
      }),
      { numRuns: 300 },
    );
    // Both kinds were compared: requests the shared server answered, and ones it left to the SDK.
    expect(plain / runs).toBeGreaterThan(0.08);
    expect(plain / runs).toBeLessThan(0.92);
    expect(failures).toEqual([]); // nothing unexpected was logged
  });

  it('hands requests straight to the server’s dispatch (an SDK without it falls back to the slower public path)', async () => {
    const server = await sharedLegacyServer(serverFactory(t.container)());
    expect(server.direct).toBe(true);
    await server.close();
  });

  it('never gives one caller another’s answer, with many requests in flight under the same ids', async () => {
    const get = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'prompts/get',
      params: { name: 'style', arguments: { language: 'Go' } },
    });
    const calls = Array.from({ length: 60 }, (_, i) => {
      const actor = i % 2 ? other : owner;
      const b =
        i % 3
          ? get(1)
          : [
              get(1),
              get(2),
              { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'artifact://docs/runbook' } },
            ];
      return serve(shared, HEADERS, b, actor).then((answer) => ({ actor, answer }));
    });
    for (const { actor, answer } of await Promise.all(calls)) {
      expect(answer.status).toBe(200);
      const text = answer.body as string;
      const mine = actor === owner ? 'Write Go idiomatically.' : 'Other user’s style for Go.';
      const theirs = actor === owner ? 'Other user’s style' : 'Write ';
      expect(text).toContain(mine);
      expect(text).not.toContain(theirs);
    }
  });
});
