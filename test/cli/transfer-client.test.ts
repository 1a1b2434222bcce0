import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-server.js';

/**
 * The client half of export/import against a stand-in server that follows the contract
 * (/work/contract: GET /export streams NDJSON, POST /import takes it as the body). The real endpoints are
 * exercised end to end in importers.test.ts.
 */
const KEY = `svk_${'k'.repeat(64)}`;
const bundle = [
  { type: 'header', format: 'cairn-export', version: 1, exported_at: '2026-11-21T00:00:00.000Z' },
  { type: 'prompt', slug: 'a', title: 'A', content: 'x'.repeat(200_000) },
  { type: 'end', counts: { prompts: 1, memories: 0, artifacts: 0 } },
]
  .map((record) => `${JSON.stringify(record)}\n`)
  .join('');

describe('export / import client streaming', () => {
  let server: Server;
  let base = '';
  let truncate = false;
  const received: { body: string; contentType?: string; query: string }[] = [];

  beforeAll(async () => {
    server = createServer(async (request: IncomingMessage, response) => {
      if (request.headers.authorization !== `Bearer ${KEY}`) {
        response
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"error":"unauthorized","message":"Invalid API key"}');
        return;
      }
      const url = new URL(request.url ?? '/', 'http://x');
      if (request.method === 'GET' && url.pathname === '/api/v1/export') {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        // In pieces, so the client really streams.
        const text = truncate ? bundle.slice(0, bundle.lastIndexOf('{"type":"end"')) : bundle;
        for (let i = 0; i < text.length; i += 65_536) response.write(text.slice(i, i + 65_536));
        response.end();
        return;
      }
      if (request.method === 'POST' && url.pathname === '/api/v1/import') {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        received.push({
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: request.headers['content-type'],
          query: url.search,
        });
        const dry = url.searchParams.get('dry_run') === 'true';
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            dry_run: dry,
            created: { prompts: 1, memories: 0, artifacts: 0 },
            updated: { prompts: 0, memories: 0, artifacts: 0 },
            unchanged: { prompts: 0, memories: 0, artifacts: 0 },
          }),
        );
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found","message":"No route"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // Asynchronous: the stand-in server lives in this process and must keep answering.
  const cairn = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { env: { PATH: process.env.PATH ?? '', CAIRN_URL: base, CAIRN_API_KEY: KEY }, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });

  it('export streams the bundle to a file (via .partial) or stdout, and checks the end record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-export-'));
    const file = join(dir, 'bundle.ndjson');
    const toFile = await cairn(['export', '-o', file]);
    expect(toFile.code).toBe(0);
    expect(toFile.stderr).toBe(
      `Exported 1 prompts, 0 memories, 0 artifacts to ${file} (${Buffer.byteLength(bundle)} bytes)\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(bundle);
    expect(existsSync(`${file}.partial`)).toBe(false);

    const toStdout = await cairn(['export']);
    expect(toStdout.stdout).toBe(bundle);

    truncate = true;
    const cut = join(dir, 'cut.ndjson');
    const incomplete = await cairn(['export', '-o', cut]);
    truncate = false;
    expect(incomplete.code).toBe(1);
    expect(incomplete.stderr).toMatch(/incomplete/);
    expect(existsSync(cut)).toBe(false);
    expect(existsSync(`${cut}.partial`)).toBe(false);
  });

  it('import streams the file as an NDJSON body, with dry_run, and prints the summary', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cairn-import-')), 'bundle.ndjson');
    writeFileSync(file, bundle);
    const result = await cairn(['import', file, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^KIND\s+CREATED\s+UPDATED\s+UNCHANGED\nprompts\s+1\s+0\s+0\n/);
    expect(result.stdout).toMatch(/Dry run: nothing was changed\.\n$/);
    expect(received.at(-1)).toEqual({ body: bundle, contentType: 'application/x-ndjson', query: '?dry_run=true' });

    const json = await cairn(['import', file, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ dry_run: false, created: { prompts: 1 } });
    expect(received.at(-1)?.query).toBe('');
  });
});
