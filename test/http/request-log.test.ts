import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Container, createContainer } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';

/** Request logging (issue 15): nothing per request at the default level, slow requests at warn, all at debug. */
describe('request log', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function serve(level: string, env: Record<string, string> = {}) {
    const database: TestDatabase = await createTestDatabase('sqlite');
    const container: Container = await createContainer(
      loadConfig({ DATABASE_URL: database.url, USAGE_FLUSH_INTERVAL_MS: '3600000', ...env }),
    );
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = await buildApp(container, { logger: { level, stream } });
    await app.ready();
    cleanup = async () => {
      await app.close();
      await container.close();
      await database.drop();
    };
    const requestLines = () => lines.filter((line) => /request/.test(String(line.msg)));
    return { app, requestLines };
  }

  it('writes no line for a request answered in time at the default level (info)', async () => {
    const { app, requestLines } = await serve('info');
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/v1/prompts' })).statusCode).toBe(401);
    expect(requestLines()).toEqual([]);
  });

  it('logs a request at warn when it took SLOW_REQUEST_MS or more', async () => {
    // 0 ms: every request is slow, so the line is certain without timing anything.
    const { app, requestLines } = await serve('info', { SLOW_REQUEST_MS: '0' });
    await app.inject({ url: '/healthz', headers: { 'x-request-id': 'slow-1' } });
    expect(requestLines()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'slow request',
        reqId: 'slow-1',
        req: expect.objectContaining({ method: 'GET', url: '/healthz' }),
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
  });

  it('logs every request at debug, without its credentials', async () => {
    const { app, requestLines } = await serve('debug');
    await app.inject({ url: '/api/v1/prompts', headers: { authorization: 'Bearer svk_secret' } });
    const lines = requestLines();
    expect(lines).toEqual([expect.objectContaining({ level: 20, msg: 'request completed', res: { statusCode: 401 } })]);
    expect(JSON.stringify(lines)).not.toContain('svk_secret');
  });
});
