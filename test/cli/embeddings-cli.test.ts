import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { TestEmbedder } from '../helpers/embedder.js';

const CLI = fileURLToPath(new URL('../../dist/cli/cairn.mjs', import.meta.url));

/** `cairn embeddings status|backfill` (the built binary) against a real embeddings server in this process. */
describe.each(DIALECTS)('cairn embeddings (built binary, %s)', { timeout: 60_000 }, (dialect) => {
  let database: TestDatabase;
  let embedder: TestEmbedder;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli/cairn.mjs is missing: run `npm run build` (npm test does)');
    database = await createTestDatabase(dialect);
    embedder = await TestEmbedder.start();
  });
  afterAll(async () => {
    await embedder?.close();
    await database?.drop();
  });

  // Asynchronous: the embeddings server answers from this process's event loop.
  const cairn = (env: Record<string, string>, ...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, DATABASE_URL: database.url, CAIRN_DEBUG: '', ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('counts missing vectors, backfills them with progress, resumes after a failure, and says when it is off', async () => {
    // Memories written with semantic search off (as before the setting): all missing.
    const plain = await createContainer(loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }));
    try {
      const user = await plain.services.users.create(OPERATOR, { email: 'cli-embed@example.com' });
      const actor = { userId: user.id, integrations: new Set(['cli' as const]), via: 'rest' as const };
      for (let i = 0; i < 5; i++) await plain.services.memories.create(actor, { text: `Release note number ${i}` });
    } finally {
      await plain.close();
    }
    const env = embedder.env('hash-16', { EMBEDDINGS_BATCH_SIZE: '2' });

    const off = await cairn({}, 'embeddings', 'status');
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/EMBEDDINGS_URL/);

    const before = await cairn(env, 'embeddings', 'status', '--json');
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ model: 'hash-16', dimensions: 16, memories: 5, missing: 5 });

    // The provider fails after the first batch (the probe and one batch of two succeed): the two are kept,
    // the next batch is recorded as failed, the last memory is still missing; the next run resumes.
    embedder.failFrom = embedder.requests + 3;
    const interrupted = await cairn(env, 'embeddings', 'backfill');
    embedder.failFrom = undefined;
    expect(interrupted.code).toBe(7);
    expect(interrupted.stdout).toBe('2 memories embedded, 2 failed\n');
    expect(interrupted.stderr).toMatch(/run `cairn embeddings backfill` again to resume/);
    const afterInterrupt = await cairn(env, 'embeddings', 'status', '--json');
    expect(JSON.parse(afterInterrupt.stdout)).toMatchObject({ embedded: 2, failed: 2, missing: 1 });

    const done = await cairn(env, 'embeddings', 'backfill');
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/embeddings \[#+\] \d+\/\d+/);
    const after = await cairn(env, 'embeddings', 'status', '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({ memories: 5, embedded: 5, missing: 0, stale: 0, failed: 0 });

    const again = await cairn(env, 'embeddings', 'backfill', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ done: 0, embedded: 0 });
  });
});
