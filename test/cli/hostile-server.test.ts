import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-server.js';

/**
 * The CLI against a stand-in server that lies: prompt slugs that are paths, and text full of terminal
 * escape sequences. The client must write nothing outside the target directory and print no control
 * sequence in human output, while --json stays the server's JSON.
 */
const KEY = `svk_${'h'.repeat(64)}`;
const ESC = '\u001b';
const EVIL = `${ESC}]0;pwned${ESC}\\${ESC}[2J${ESC}]52;c;cm0gLXJm\u0007\u009b31m\r`;

const prompt = (slug: string, title = 'T') => ({
  id: 'prm_x',
  slug,
  title,
  description: '',
  content: 'Hello',
  status: 'draft',
  available_in_mcp: false,
  labels: [],
  variables: [],
  references: [],
  variable_schema: {},
  version: 1,
  created_at: '2026-11-21T00:00:00.000Z',
  updated_at: '2026-11-21T00:00:00.000Z',
});

describe('cairn against a hostile server', () => {
  let server: Server;
  let base = '';
  let prompts: Record<string, unknown>[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const json = (body: unknown) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname === '/api/v1/prompts') {
        return json({ prompts, total: prompts.length, page: 1, per_page: 100 });
      }
      if (url.pathname.startsWith('/api/v1/prompts/')) return json(prompts[0]);
      if (url.pathname === '/api/v1/memories') {
        return json({
          memories: [
            {
              memory_id: 'mem_x',
              text: `remember ${EVIL}this`,
              project_name: `p${EVIL}`,
              metadata: { title: `t${EVIL}` },
              created_at: '2026-11-21T00:00:00.000Z',
              updated_at: '2026-11-21T00:00:00.000Z',
            },
          ],
          total: 1,
          page: 1,
          per_page: 20,
        });
      }
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'validation_error', message: `bad ${EVIL}request`, details: {} }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cairn = (args: string[], cwd?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { cwd, env: { PATH: process.env.PATH ?? '', CAIRN_URL: base, CAIRN_API_KEY: KEY, EDITOR: 'true' } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
  const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it('pull writes nothing when any slug is not a slug, wherever it points', async () => {
    for (const slug of [
      '../../escaped',
      '../escaped',
      '/tmp/escaped-absolute',
      'a/b',
      'a\\b',
      '..',
      'nul\u0000x',
      'x'.repeat(300),
      `${EVIL}x`,
    ]) {
      const root = mkdtempSync(join(tmpdir(), 'cairn-hostile-'));
      const target = join(root, 'one', 'two', 'prompts');
      mkdirSync(target, { recursive: true });
      prompts = [prompt('fine'), prompt(slug)];
      const result = await cairn(['prompts', 'pull', target]);
      expect(result.code, slug).toBe(1);
      expect(result.stderr, slug).toMatch(/^cairn: the server sent an invalid prompt slug .*; nothing was written\n$/);
      expect(result.stderr, slug).not.toMatch(UNSAFE);
      expect(readdirSync(target), slug).toEqual([]);
      expect(readdirSync(join(root, 'one', 'two')), slug).toEqual(['prompts']);
      expect(readdirSync(join(root, 'one')), slug).toEqual(['two']);
      expect(readdirSync(root), slug).toEqual(['one']);
    }
    expect(existsSync('/tmp/escaped-absolute.md')).toBe(false);
    // Valid slugs still work.
    const dir = mkdtempSync(join(tmpdir(), 'cairn-hostile-ok-'));
    prompts = [prompt('fine', `Title ${EVIL}`)];
    const ok = await cairn(['prompts', 'pull', dir]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['fine.md']);
  });

  it('edit refuses a slug that is a path before writing its temporary file', async () => {
    prompts = [prompt('../../../../tmp/cairn-edit-escape')];
    const result = await cairn(['prompts', 'edit', 'whatever']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/invalid prompt slug/);
    expect(existsSync('/tmp/cairn-edit-escape.md')).toBe(false);
  });

  it('strips escape sequences from tables, details and error messages; --json stays the JSON', async () => {
    prompts = [
      { ...prompt('fine', `Title ${EVIL}`), description: `D${EVIL}`, labels: [`l${EVIL}`], content: `C${EVIL}` },
    ];
    for (const args of [
      ['prompts', 'list'],
      ['prompts', 'get', 'fine'],
      ['memories', 'list'],
      ['artifacts', 'list'],
    ]) {
      const result = await cairn(args);
      expect(`${result.stdout}${result.stderr}`, args.join(' ')).not.toMatch(UNSAFE);
    }
    const table = await cairn(['prompts', 'list']);
    expect(table.stdout).toMatch(/Title/);
    const error = await cairn(['artifacts', 'list']);
    expect(error.stderr).toBe('cairn: invalid input: bad request\n');
    const json = await cairn(['prompts', 'list', '--json']);
    expect(JSON.parse(json.stdout).prompts[0].title).toBe(`Title ${EVIL}`);
    expect(json.stdout).not.toContain(ESC); // JSON escapes it
    // --raw to a file or pipe is the content byte for byte.
    const raw = await cairn(['prompts', 'get', 'fine', '--raw']);
    expect(raw.stdout).toBe(`C${EVIL}`);
  });
});
