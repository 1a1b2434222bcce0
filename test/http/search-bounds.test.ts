import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAGE } from '../../src/domain/common/pagination.js';
import { SEARCH_MESSAGES } from '../../src/domain/common/search-words.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

/**
 * Work budgets of every search and list (issue 12, item 2): search words are de-duplicated and capped with
 * one rule and one message on REST and MCP; pages are bounded; ranked memory search refuses pages that
 * start beyond its candidate bound; hostile project names are refused by the domain itself.
 */
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
const LISTS = ['/api/v1/memories', '/api/v1/prompts', '/api/v1/artifacts'];
const CANDIDATES = 100;

describe.each(DIALECTS)('search and page bounds (%s)', (dialect) => {
  let t: TestApp;
  let user: Awaited<ReturnType<TestApp['user']>>;
  let client: Client;

  beforeAll(async () => {
    t = await createTestApp(dialect, { MEMORY_SEARCH_CANDIDATES: String(CANDIDATES) });
    user = await t.user();
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const mcpKey = (await t.key(user.email, ['mcp_server'])).key;
    client = new Client({ name: 'bounds-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp/v1/common`), {
        requestInit: { headers: { Authorization: `Bearer ${mcpKey}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const get = (url: string) => t.request(user.key, { method: 'GET', url });
  const search = (list: string, value: string, extra = '') =>
    get(`${list}?search=${encodeURIComponent(value)}${extra}`);

  it('accepts 32 distinct words, however often repeated, on every REST search', async () => {
    for (const list of LISTS) {
      const res = await search(list, `${words(32)} ${words(32).toUpperCase()} ${words(32)}`);
      expect(res.statusCode, list).toBe(200);
    }
    // Memory search with its extra modes too.
    expect((await search('/api/v1/memories', words(32), '&project_name=acme/app&explain=true')).statusCode).toBe(200);
  });

  it('refuses a 33rd distinct word and an over-long word with a 400 naming search, on every REST search', async () => {
    for (const list of LISTS) {
      for (const [value, message] of [
        [words(33), SEARCH_MESSAGES.words],
        [`ok ${'x'.repeat(101)}`, SEARCH_MESSAGES.wordLength],
      ] as const) {
        const res = await search(list, value);
        expect(res.statusCode, list).toBe(400);
        expect(res.json().error, list).toBe('validation_error');
        expect(res.json().details, list).toEqual({ search: message });
      }
    }
  });

  it('gives MCP tools the same refusal, with the same message', async () => {
    for (const name of ['svc_search_memories', 'svc_list_prompts', 'svc_list_artifacts']) {
      const ok = await client.callTool({ name, arguments: { search: words(32) } });
      expect(ok.isError, name).toBeFalsy();
      const refused = await client.callTool({ name, arguments: { search: words(33) } });
      expect(refused.isError, name).toBe(true);
      const text = (refused.content as Array<{ text: string }>).map((c) => c.text).join('\n');
      expect(text, name).toContain('validation_error');
      expect(text, name).toContain(`search: ${SEARCH_MESSAGES.words}`);
    }
  });

  it('refuses a hostile project name in MCP search quickly, with the REST message', async () => {
    const started = process.hrtime.bigint();
    const res = await client.callTool({
      name: 'svc_search_memories',
      arguments: { search: 'x', project_name: `a${'/a'.repeat(100_000)}` },
    });
    expect(res.isError).toBe(true);
    const text = (res.content as Array<{ text: string }>).map((c) => c.text).join('\n');
    expect(text).toContain('Project name must be at most 200 characters');
    // Generous: the quadratic path took tens of seconds and ran out of heap.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5_000);
    const rest = await get(`/api/v1/memories?search=x&project_name=${encodeURIComponent(`a${'/a'.repeat(150)}`)}`);
    expect(rest.statusCode).toBe(400);
    expect(rest.json().details.project_name).toBe('Project name must be at most 200 characters');
  });

  it(`bounds page at ${MAX_PAGE} on every list with a 400 naming page, huge and unsafe numbers included`, async () => {
    for (const list of LISTS) {
      expect((await get(`${list}?page=${MAX_PAGE}`)).statusCode, list).toBe(200);
      for (const page of [String(MAX_PAGE + 1), '1000000000', '1000000000000', '99999999999999999999999999']) {
        const res = await get(`${list}?page=${page}`);
        expect(res.statusCode, `${list} ${page}`).toBe(400);
        expect(res.json().details, `${list} ${page}`).toEqual({ page: `page must be between 1 and ${MAX_PAGE}` });
      }
    }
  });

  it('refuses a ranked-search page that starts beyond the candidate bound, for words and automatic context', async () => {
    for (const value of ['anything', '']) {
      // Offset 80 < 100: allowed (the set stretches to the page's end).
      expect((await search('/api/v1/memories', value, '&page=5&per_page=20')).statusCode).toBe(200);
      const res = await search('/api/v1/memories', value, '&page=6&per_page=20');
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual({
        page: `Ranked results go ${CANDIDATES} deep: page must be at most 5 at per_page 20`,
      });
    }
    // The plain list (no search) is not ranked: any page up to the page bound.
    expect((await get('/api/v1/memories?page=6&per_page=20')).statusCode).toBe(200);
  });
});
