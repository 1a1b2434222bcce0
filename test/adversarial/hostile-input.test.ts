import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostileServer } from '../helpers/hostile-server.js';
import type { Json } from '../helpers/json.js';

/**
 * The adversarial suite (issue 12): hostile input on every surface of a real `cairn serve`. Each case
 * asserts a handled answer (a 4xx in the error shape, or a bounded 2xx), that the server's event loop stayed
 * responsive meanwhile (the slowest `/healthz` during the attack), and that the process is alive afterwards.
 *
 * The health threshold is generous on purpose (CI machines are shared and slow): the failures it guards
 * against blocked the loop for 17 s to over 50 s.
 */
const HEALTH_LIMIT_MS = 2_000;

const dots = `a@${'.'.repeat(100_000)}@`;
const deepProject = `a${'/a'.repeat(100_000)}`;

let server: HostileServer;
let key: string;
let mcp: Client;
let cookie = '';

const toolText = (result: Record<string, Json>) =>
  (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');

/** Every 4xx carries the contract's error shape. */
function expectHandled(res: { status: number; body: Json }, status?: number | number[]) {
  const allowed = status === undefined ? undefined : Array.isArray(status) ? status : [status];
  if (allowed) expect(allowed, JSON.stringify(res.body)?.slice(0, 300)).toContain(res.status);
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(typeof res.body?.error).toBe('string');
  expect(typeof res.body?.message).toBe('string');
}

async function attack<T>(run: () => Promise<T>): Promise<T> {
  const { result, worstHealthMs } = await server.underAttack(run);
  expect(worstHealthMs, `the event loop was blocked (slowest /healthz ${Math.round(worstHealthMs)} ms)`).toBeLessThan(
    HEALTH_LIMIT_MS,
  );
  expect(await server.alive()).toBe(true);
  return result;
}

beforeAll(async () => {
  server = await HostileServer.start('sqlite', { RATE_LIMIT_FREE: '1000000' });
  key = server.key('adversary@example.com');
  mcp = await server.mcp(key);
  const signup = await server.fetch('/dashboard/api/signup', {
    method: 'POST',
    json: { email: 'owner@example.com', password: 'correct horse battery staple' },
  });
  expect(signup.status).toBe(201);
  cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await server?.stop();
});

describe('bounded before parsed', () => {
  it('login with a 100 KB e-mail of dots is a prompt 400 (the e-mail pattern was quadratic)', async () => {
    const res = await attack(() =>
      server.fetch('/dashboard/api/login', { method: 'POST', json: { email: dots, password: 'whatever-password' } }),
    );
    expectHandled(res, 400);
    expect(res.body.details.email).toMatch(/at most 254/);
  });

  it('sign-up with the same e-mail, and e-mail variants that trip backtracking', async () => {
    for (const email of [dots, `a@${'a.'.repeat(50_000)}`, `${'@'.repeat(50_000)}`, ` ${' '.repeat(100_000)}a@b.c`]) {
      const res = await attack(() =>
        server.fetch('/dashboard/api/signup', { method: 'POST', json: { email, password: 'another strong one' } }),
      );
      expectHandled(res, 400);
      expect(Object.keys(res.body.details)).toContain('email');
    }
  });

  it('MCP svc_search_memories with a 200 KB project path is a tool error, not an out-of-memory crash', async () => {
    const result = await attack(() =>
      mcp.callTool({ name: 'svc_search_memories', arguments: { project_name: deepProject, search: 'x' } }),
    );
    expect(result.isError).toBe(true);
    expect(toolText(result)).toMatch(/project_name: Project name must be at most 200 characters/);
  });

  it('REST refuses the same project path with the same message', async () => {
    const res = await attack(() =>
      server.fetch('/api/v1/memories', { method: 'POST', key, json: { text: 'x', project_name: deepProject } }),
    );
    expectHandled(res, 400);
    expect(res.body.details.project_name).toBe('Project name must be at most 200 characters');
  });

  it('huge arrays, many keys and deep nesting are 400s on REST and MCP', async () => {
    const bodies = [
      { title: 't', content: 'c', labels: Array.from({ length: 200_000 }, () => 'a') },
      {
        title: 't',
        content: 'c',
        variable_schema: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`v${i}`, {}])),
      },
    ];
    for (const json of bodies) {
      const res = await attack(() => server.fetch('/api/v1/prompts', { method: 'POST', key, json }));
      expectHandled(res, 400);
    }
    const manyKeys = Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 1]));
    const memory = await attack(() =>
      server.fetch('/api/v1/memories', { method: 'POST', key, json: { text: 'x', metadata: manyKeys } }),
    );
    expectHandled(memory, 400);
    // Built as text: the test process itself could not JSON.stringify a value this deep.
    const deep = `{"text":"x","metadata":{"deep":${'['.repeat(50_000)}1${']'.repeat(50_000)}}}`;
    const nested = await attack(() =>
      server.fetch('/api/v1/memories', {
        method: 'POST',
        key,
        body: deep,
        headers: { 'content-type': 'application/json' },
      }),
    );
    expectHandled(nested, 400);
    const tool = await attack(() =>
      mcp.callTool({ name: 'svc_create_memory', arguments: { text: 'x', metadata: manyKeys } }),
    );
    expect(tool.isError).toBe(true);
  });

  it('an import line nested 200,000 deep is a prompt 400 naming the line', async () => {
    const header = JSON.stringify({
      type: 'header',
      format: 'cairn-export',
      version: 1,
      exported_at: new Date().toISOString(),
    });
    const deep = `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`;
    const res = await attack(() =>
      server.fetch('/api/v1/import', {
        method: 'POST',
        key,
        body: `${header}\n${deep}\n`,
        headers: { 'content-type': 'application/x-ndjson' },
      }),
    );
    expectHandled(res, 400);
    expect(Object.keys(res.body.details)).toContain('line 2');
  });

  it('an over-long search is refused with one message on REST and MCP', async () => {
    const search = 'word '.repeat(100_000);
    const tool = await attack(() => mcp.callTool({ name: 'svc_search_memories', arguments: { search } }));
    expect(tool.isError).toBe(true);
    expect(toolText(tool)).toMatch(/search: Search must be at most 1,000 characters/);
    const prompts = await attack(() => mcp.callTool({ name: 'svc_list_prompts', arguments: { search } }));
    expect(toolText(prompts)).toMatch(/search: Search must be at most 1,000 characters/);
  });

  it('an over-long Authorization header is a 401 without work', async () => {
    const res = await attack(() =>
      server.fetch('/api/v1/prompts', { headers: { authorization: `Bearer svk_${'a'.repeat(12_000)}` } }),
    );
    expectHandled(res, [401, 431]);
  });
});

describe('validation names every invalid field at once', () => {
  it('a memory update with a bad text and a bad metadata.priority names both (REST and MCP)', async () => {
    const created = await server.fetch('/api/v1/memories', { method: 'POST', key, json: { text: 'keep' } });
    const id = created.body.memory_id as string;
    const res = await server.fetch(`/api/v1/memories/${id}`, {
      method: 'PUT',
      key,
      json: { text: '', metadata: { priority: 'urgent', tags: [''] } },
    });
    expectHandled(res, 400);
    expect(Object.keys(res.body.details).sort()).toEqual(['metadata.priority', 'metadata.tags.0', 'text']);
    const tool = await mcp.callTool({
      name: 'svc_update_memory',
      arguments: { memory_id: id, text: '', metadata: { priority: 'urgent' } },
    });
    expect(tool.isError).toBe(true);
    expect(toolText(tool)).toMatch(/text: /);
    expect(toolText(tool)).toMatch(/metadata\.priority: Priority must be high, medium or low/);
  });
});

describe('work budgets', () => {
  it('six prompts each referencing the next 40 times: a handled 4xx on REST, MCP and the dashboard', async () => {
    const slugs = ['amp-0', 'amp-1', 'amp-2', 'amp-3', 'amp-4', 'amp-5'];
    for (let i = slugs.length - 1; i >= 0; i--) {
      const next = slugs[i + 1];
      const content = next ? Array.from({ length: 40 }, () => `@${next}`).join(' ') : 'x'.repeat(100);
      const res = await server.fetch('/api/v1/prompts', {
        method: 'POST',
        key,
        json: { title: slugs[i], slug: slugs[i], content, status: 'published', available_in_mcp: true },
      });
      expect(res.status).toBe(201);
    }
    const rest = await attack(() =>
      server.fetch('/api/v1/prompts/amp-0/render', { method: 'POST', key, json: { variables: {} } }),
    );
    expectHandled(rest, [400, 413]);
    expect(rest.body.error).toBe('validation_error');
    expect(rest.body.message).toMatch(/@amp-0/);

    const tool = await attack(() => mcp.callTool({ name: 'svc_get_prompt', arguments: { slug: 'amp-0' } }));
    expect(tool.isError).toBe(true);
    expect(toolText(tool)).toMatch(/@amp-0/);

    const prompt = await attack(() =>
      mcp.getPrompt({ name: 'amp-0' }).then(
        () => 'rendered',
        (error: Error) => error,
      ),
    );
    expect(prompt).toBeInstanceOf(Error);
    expect((prompt as Error).message).toMatch(/@amp-0/);
  });

  it('huge page numbers are refused or answered cheaply', async () => {
    for (const path of [
      '/api/v1/prompts?page=999999999',
      '/api/v1/memories?page=999999999',
      '/api/v1/memories?search=a&page=999999999',
      '/api/v1/artifacts?page=999999999',
      `/api/v1/prompts?page=${'9'.repeat(5_000)}`,
    ]) {
      const res = await attack(() => server.fetch(path, { key }));
      if (res.status === 200)
        expect(Object.values(res.body).some((v) => Array.isArray(v) && v.length === 0)).toBe(true);
      else expectHandled(res, 400);
    }
  });

  it('a search of a thousand one-letter words is bounded', async () => {
    const search = 'a '.repeat(500);
    for (const path of ['prompts', 'memories', 'artifacts']) {
      const res = await attack(() => server.fetch(`/api/v1/${path}?search=${encodeURIComponent(search)}`, { key }));
      if (res.status !== 200) expectHandled(res, 400);
    }
  });
});

describe('throttles reserve before they work', () => {
  it('30 parallel wrong-password logins for one account check at most 10 passwords', async () => {
    const responses = await attack(() =>
      Promise.all(
        Array.from({ length: 30 }, () =>
          server.fetch('/dashboard/api/login', {
            method: 'POST',
            json: { email: 'owner@example.com', password: 'wrong password guess' },
          }),
        ),
      ),
    );
    const counts = { 401: 0, 429: 0 } as Record<number, number>;
    for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
    expect(counts[401]).toBeLessThanOrEqual(10);
    expect(counts[429]).toBe(30 - (counts[401] ?? 0));
    // Ten real password checks (scrypt at the OWASP cost, 128 MiB each) on a loaded machine can take longer
    // than the default timeout; what is asserted is how many were checked, never how long they took.
  }, 90_000);
});

describe('every call counts', () => {
  it('a JSON-RPC batch of 50 tool calls is refused or counted as 50', async () => {
    const remaining = async () => {
      const res = await server.fetch('/api/v1/me', { key });
      return Number(res.headers.get('x-ratelimit-remaining'));
    };
    const before = await remaining();
    const batch = Array.from({ length: 50 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'svc_search_memories', arguments: { search: 'x' } },
    }));
    const res = await attack(() =>
      server.fetch('/mcp/v1/common', {
        method: 'POST',
        key,
        json: batch,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
      }),
    );
    const after = await remaining();
    if (res.status < 300) expect(before - after).toBeGreaterThanOrEqual(51);
    else expect(res.status).toBeLessThan(500);
  });

  it('the dashboard session API answers with rate-limit headers', async () => {
    const res = await server.fetch('/dashboard/api/prompts', { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });
});

describe('tenancy of statistics', () => {
  it("another user's flood of memories changes neither score nor explain of a search (REST and MCP)", async () => {
    const victim = server.key('victim@example.com');
    const flooder = server.key('flooder@example.com');
    for (const text of ['Deploys go out through the blue/green pipeline', 'Rollback: redeploy the previous image']) {
      expect((await server.fetch('/api/v1/memories', { method: 'POST', key: victim, json: { text } })).status).toBe(
        201,
      );
    }
    const read = async () => {
      const res = await server.fetch('/api/v1/memories?search=deploy%20pipeline%20rollback&explain=true', {
        key: victim,
      });
      return res.body.memories.map((m: Json) => ({ id: m.memory_id, score: m.score, parts: m.score_parts }));
    };
    const before = await read();
    expect(before.length).toBe(2);
    await attack(() =>
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          server.fetch('/api/v1/memories', {
            method: 'POST',
            key: flooder,
            json: { text: `deploy deploy pipeline ${i % 2 ? 'rollback' : 'other words'} ${'filler '.repeat(i)}` },
          }),
        ),
      ),
    );
    const after = await read();
    // Recency moves with the reads themselves: compare the parts the flood could have influenced.
    const keyword = (rows: Json[]) =>
      rows
        .map((r) => ({ id: r.id, keyword: r.parts.keyword, bm25: r.parts.bm25 }))
        .sort((a, b) => a.id.localeCompare(b.id));
    expect(keyword(after)).toEqual(keyword(before));
  });
});

describe('integration scope', () => {
  it('a marketplace-only key never gets a draft expanded into a published prompt', async () => {
    const owner = 'publisher@example.com';
    const writer = server.key(owner, 'cli');
    const market = server.key(owner, 'marketplace');
    await server.fetch('/api/v1/prompts', {
      method: 'POST',
      key: writer,
      json: { title: 'Secret draft', slug: 'secret-draft', content: 'DRAFT-ONLY-TEXT' },
    });
    await server.fetch('/api/v1/prompts', {
      method: 'POST',
      key: writer,
      json: { title: 'Public', slug: 'public', content: 'Intro @secret-draft', status: 'published' },
    });
    const owned = await server.fetch('/api/v1/prompts/public/render', { method: 'POST', key: writer, json: {} });
    expect(owned.body.content).toContain('DRAFT-ONLY-TEXT');
    const rendered = await attack(() =>
      server.fetch('/api/v1/prompts/public/render', { method: 'POST', key: market, json: {} }),
    );
    expectHandled(rendered, 400);
    expect(JSON.stringify(rendered.body)).not.toContain('DRAFT-ONLY-TEXT');
    expect(rendered.body.message).toBe('Reference to a prompt that does not exist: @public → @secret-draft');
    const read = await server.fetch('/api/v1/prompts/public', { key: market });
    expect(read.body.broken_references).toEqual(['@secret-draft']);
    expect((await server.fetch('/api/v1/prompts/secret-draft', { key: market })).status).toBe(404);
  });
});
