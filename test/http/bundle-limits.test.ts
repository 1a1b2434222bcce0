import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spoolOwnerName } from '../../src/http/bundle-spool.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type Line = Record<string, Json>;
const NDJSON = { 'content-type': 'application/x-ndjson' };
const toBody = (lines: Line[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const AT = '2026-01-02T03:04:05.000Z';

const header = { type: 'header', format: 'cairn-export', version: 1, exported_at: AT };
const promptVersion = (over: Line = {}) => ({
  version: 1,
  title: 'Greeting',
  description: '',
  content: 'Hello',
  labels: [],
  variable_schema: {},
  commit_message: null,
  created_at: AT,
  ...over,
});
const prompt = (over: Line = {}) => ({
  type: 'prompt',
  id: 'not-an-id',
  slug: 'greeting',
  title: 'Greeting',
  description: '',
  content: 'Hello {{name}}',
  status: 'draft',
  available_in_mcp: false,
  labels: [],
  variable_schema: { name: { description: 'Who' } },
  version: 2,
  created_at: AT,
  updated_at: AT,
  versions: [promptVersion()],
  ...over,
});
const artifact = (over: Line = {}) => ({
  type: 'artifact',
  id: 'not-an-id',
  project: 'docs',
  slug: 'notes',
  title: 'Notes',
  description: '',
  content: 'second',
  content_type: 'text/markdown',
  labels: [],
  metadata: {},
  version: 2,
  created_at: AT,
  updated_at: AT,
  ...over,
});
const artifactVersion = (over: Line = {}) => ({
  type: 'artifact_version',
  project: 'docs',
  slug: 'notes',
  version: 1,
  content: 'first',
  content_type: 'text/markdown',
  created_at: AT,
  ...over,
});
const end = { type: 'end', counts: { prompts: 1, memories: 0, artifacts: 1 } };
const bundle = (p: Line = prompt(), a: Line = artifact(), v: Line = artifactVersion()) => [header, p, a, v, end];

/** Polls a condition (no fixed sleeps): the spool file of a running import, a released slot. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(DIALECTS)('import limits (%s)', (dialect) => {
  let t: TestApp;
  let base: string;
  const own = () => join(base, spoolOwnerName());
  const spooled = () => (existsSync(own()) ? readdirSync(own()) : []);

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'cairn-spool-test-'));
    t = await createTestApp(dialect, {
      IMPORT_MAX_BYTES: '1000000',
      IMPORT_MAX_LINE_BYTES: '200000',
      IMPORT_MAX_CONCURRENT: '2',
      IMPORT_MAX_CONCURRENT_PER_USER: '1',
      IMPORT_SPOOL_DIR: base,
      ARTIFACT_MAX_BYTES: '1024',
    });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(base, { recursive: true, force: true });
  });

  const importInto = (key: string, payload: string | PassThrough, query = '') =>
    t.request(key, { method: 'POST', url: `/api/v1/import${query}`, headers: NDJSON, payload });
  const exportTypes = async (key: string) =>
    (await t.request(key, { method: 'GET', url: '/api/v1/export' })).body
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).type);

  it('imports history that passes the live rules, normalised as live content is', async () => {
    const { key } = await t.user();
    const history = [promptVersion({ title: '  Greeting  ', labels: ['a', 'a'], commit_message: '  ' })];
    const res = await importInto(key, toBody(bundle(prompt({ versions: history }))));
    expect(res.statusCode, res.body).toBe(200);
    const v1 = (await t.request(key, { method: 'GET', url: '/api/v1/prompts/greeting/versions/1' })).json();
    expect(v1).toMatchObject({ title: 'Greeting', labels: ['a'], commit_message: null, content: 'Hello' });
    expect(spooled()).toEqual([]);
  });

  it('refuses prompt and artifact versions that live content rules refuse, naming line and field', async () => {
    const { key } = await t.user();
    const version = (over: Line) => prompt({ versions: [promptVersion(over)] });
    const cases: Array<[string, Line[], Record<string, string>]> = [
      ['empty version title', bundle(version({ title: ' ' })), { 'line 2': 'versions.0.title: Title is required' }],
      [
        'version title too long',
        bundle(version({ title: 'x'.repeat(201) })),
        { 'line 2': 'versions.0.title: Title must be at most 200 characters' },
      ],
      [
        'too many version labels',
        bundle(version({ labels: Array.from({ length: 11 }, (_, i) => `l${i}`) })),
        { 'line 2': 'versions.0.labels: At most 10 labels' },
      ],
      [
        'bad variable name in a version',
        bundle(version({ content: 'Hi', variable_schema: { '1x': {} } })),
        {
          'line 2':
            'versions.0.variable_schema.1x: Variable names are letters, digits and _, not starting with a digit',
        },
      ],
      [
        'version schema for a variable its content lacks',
        bundle(version({ variable_schema: { who: {} } })),
        { 'line 2': 'versions.0.variable_schema: Describes variables the content does not use: who' },
      ],
      [
        'version content too long',
        bundle(version({ content: 'x'.repeat(100_001) })),
        { 'line 2': 'versions.0.content: Content must be at most 100,000 characters' },
      ],
      [
        'version commit message too long',
        bundle(version({ commit_message: 'x'.repeat(501) })),
        { 'line 2': 'versions.0.commit_message: Commit message must be at most 500 characters' },
      ],
      [
        'artifact version over ARTIFACT_MAX_BYTES',
        bundle(undefined, undefined, artifactVersion({ content: 'x'.repeat(1025) })),
        { 'line 4': 'content: Artifact content is 1025 bytes; the limit is 1024 bytes' },
      ],
      [
        'artifact version with a bad content type',
        bundle(undefined, undefined, artifactVersion({ content_type: 'not a type' })),
        { 'line 4': 'content_type: Content type must be a MIME type such as text/markdown' },
      ],
      [
        'string over its shape bound',
        bundle(prompt({ title: 'x'.repeat(10_001) })),
        { 'line 2': 'title: Must be at most 10,000 characters' },
      ],
      [
        'timestamp over its shape bound (checked before the pattern)',
        bundle(undefined, undefined, artifactVersion({ created_at: '9'.repeat(65) })),
        { 'line 4': 'created_at: Must be at most 64 characters' },
      ],
      [
        'array over its shape bound',
        bundle(prompt({ labels: Array.from({ length: 1001 }, () => 'l') })),
        { 'line 2': 'labels: At most 1,000 entries' },
      ],
      [
        'U+0000 in a version, refused as in live content (PostgreSQL cannot store it)',
        bundle(version({ content: 'Hello\u0000' })),
        { 'line 2': 'versions.0.content: Must not contain the NUL character (U+0000)' },
      ],
    ];
    for (const [name, lines, details] of cases) {
      const res = await importInto(key, toBody(lines));
      expect(res.statusCode, name).toBe(400);
      expect(res.json().error, name).toBe('validation_error');
      expect(res.json().details, name).toEqual(details);
    }
    expect(await exportTypes(key)).toEqual(['header', 'end']);
    expect(spooled()).toEqual([]);
  });

  it('refuses a line over IMPORT_MAX_LINE_BYTES while it streams in, naming the line', async () => {
    const { key } = await t.user();
    const whole = `${JSON.stringify(header)}\n\n${'x'.repeat(200_001)}\n${JSON.stringify(end)}\n`;
    const res = await importInto(key, whole);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'validation_error',
      message: 'The bundle is invalid (line 3: longer than 200000 bytes)',
      details: { 'line 3': 'The line is longer than 200000 bytes (IMPORT_MAX_LINE_BYTES)' },
    });
    // A body that never ends: the answer comes as soon as the limit is passed, not at the end of the body.
    const body = new PassThrough();
    const pending = importInto(key, body);
    body.write(`${JSON.stringify(header)}\r\n`);
    for (let i = 0; i < 25; i++) body.write('y'.repeat(10_000));
    const streamed = await pending;
    body.destroy();
    expect(streamed.statusCode).toBe(400);
    expect(streamed.headers.connection).toBe('close');
    expect(streamed.json().details).toEqual({
      'line 2': 'The line is longer than 200000 bytes (IMPORT_MAX_LINE_BYTES)',
    });
    // CRLF lines just under the limit are fine (the line break is not counted).
    const crlf = toBody(bundle(prompt({ description: '' }))).replaceAll('\n', '\r\n');
    expect((await importInto(key, crlf)).statusCode).toBe(200);
    await until(() => spooled().length === 0, 'the spool file to be removed');
  });

  it('caps concurrent imports per user (409) and per instance (503), releasing on every way out', async () => {
    const alice = await t.user();
    const bob = await t.user();
    const carol = await t.user();
    const start = async (key: string) => {
      const body = new PassThrough();
      const before = spooled().length;
      const response = importInto(key, body);
      body.write(`${JSON.stringify(header)}\n`);
      await until(() => spooled().length > before, 'the import to start spooling');
      return { response, finish: () => body.end(toBody(bundle().slice(1))) };
    };
    const first = await start(alice.key);
    const again = await importInto(alice.key, toBody(bundle()));
    expect(again.statusCode).toBe(409);
    expect(again.headers.connection).toBe('close'); // refused unread: the body is not drained
    expect(again.json()).toEqual({
      error: 'conflict',
      message: 'An import of yours is already running; wait for it to finish',
    });
    const second = await start(bob.key);
    const third = await importInto(carol.key, toBody(bundle()));
    expect(third.statusCode).toBe(503);
    expect(third.headers['retry-after']).toBe('10');
    expect(third.json()).toEqual({
      error: 'service_unavailable',
      message: 'Too many imports are running on this server (at most 2 at once); retry shortly',
    });
    first.finish();
    second.finish();
    expect((await first.response).statusCode).toBe(200);
    expect((await second.response).statusCode).toBe(200);
    expect((await importInto(carol.key, toBody(bundle()))).statusCode).toBe(200);

    // Each failure gives its slot back: the user's next import is not refused as concurrent.
    const failures: Array<[string, string | PassThrough, number]> = [
      ['invalid', toBody(bundle().slice(0, -1)), 400],
      ['line too long', `${'z'.repeat(200_001)}\n`, 400],
      ['too large', `${`${' '.repeat(150_000)}\n`.repeat(7)}`, 413],
    ];
    for (const [name, payload, status] of failures) {
      expect((await importInto(alice.key, payload)).statusCode, name).toBe(status);
      expect((await importInto(alice.key, toBody(bundle()), '?dry_run=true')).statusCode, name).toBe(200);
    }
    // A body that breaks off mid-stream.
    const broken = new PassThrough();
    const aborted = importInto(alice.key, broken);
    broken.write(`${JSON.stringify(header)}\n`);
    await until(() => spooled().length > 0, 'the import to start spooling');
    broken.destroy(new Error('client went away'));
    await aborted.catch(() => undefined);
    await until(() => spooled().length === 0, 'the aborted import to be cleaned up');
    expect((await importInto(alice.key, toBody(bundle()), '?dry_run=true')).statusCode).toBe(200);
  });
});

describe('import spool at start', () => {
  it('removes leftovers of stopped servers of this host, never live ones or other hosts', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cairn-spool-start-'));
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const leftovers = {
      dead: spoolOwnerName(dead, 0),
      ownName: spoolOwnerName(),
      live: spoolOwnerName(process.ppid, 0),
      otherThread: spoolOwnerName(process.pid, 4242),
      otherHost: spoolOwnerName(dead, 0, 'elsewhere'),
    };
    for (const name of Object.values(leftovers)) {
      mkdirSync(join(base, name));
      writeFileSync(join(base, name, 'import-old.jsonl'), '{}\n');
    }
    writeFileSync(join(base, 'unrelated.txt'), 'keep me');
    const t = await createTestApp('sqlite', { IMPORT_SPOOL_DIR: base });
    try {
      expect(readdirSync(base).sort()).toEqual(
        [leftovers.live, leftovers.otherThread, leftovers.otherHost, leftovers.ownName, 'unrelated.txt'].sort(),
      );
      expect(readdirSync(join(base, leftovers.ownName))).toEqual([]);
      expect(readdirSync(join(base, leftovers.live))).toEqual(['import-old.jsonl']);
    } finally {
      await t.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it.skipIf(process.platform === 'win32')('refuses a spool directory other users can write to', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cairn-spool-open-'));
    chmodSync(base, 0o777);
    try {
      await expect(createTestApp('sqlite', { IMPORT_SPOOL_DIR: base })).rejects.toThrow(
        /is writable by other users; remove it or set IMPORT_SPOOL_DIR/,
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
