import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type Line = Record<string, Json>;
const NDJSON = { 'content-type': 'application/x-ndjson' };

const parse = (body: string): Line[] =>
  body
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
const toBody = (lines: Line[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

/** A bundle's content without what legitimately differs between accounts: ids and the export time. */
const content = (lines: Line[]) => lines.map(({ id: _id, memory_id: _memoryId, exported_at: _at, ...rest }) => rest);

describe.each(DIALECTS)('export and import (%s)', (dialect) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<TestApp['user']>>;
  let bob: Awaited<ReturnType<TestApp['user']>>;

  beforeAll(async () => {
    t = await createTestApp(dialect, { ARTIFACT_VERSION_RETENTION: '10' });
    alice = await t.user();
    bob = await t.user();
    const as = (method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>) =>
      t.request(alice.key, { method, url: `/api/v1${url}`, payload }).then((res) => {
        expect(res.statusCode, res.body).toBeLessThan(300);
        return res.json();
      });
    await as('POST', '/prompts', {
      title: 'Base style',
      slug: 'base-style',
      content: 'Write {{language}} idiomatically.',
      labels: ['style'],
      variable_schema: { language: { description: 'Language', enum: ['Go', 'TypeScript'], default: 'Go' } },
    });
    await as('POST', '/prompts', {
      title: 'Review ✓',
      slug: 'review',
      content: 'Review {{pr}}. @base-style',
      status: 'published',
      available_in_mcp: true,
    });
    await as('PUT', '/prompts/review', { content: 'Review {{pr}} carefully. @base-style', commit_message: 'care' });
    await as('PUT', '/prompts/review', { labels: ['code', 'review'] });
    // Two changes: the memory is at version 3 with versions 1 and 2 kept.
    const memory = await as('POST', '/memories', {
      text: 'Use yarn — ünïcödé too',
      project_name: 'acme/web',
      metadata: { category: 'tooling', priority: 'low', tags: ['js'] },
    });
    await as('PUT', `/memories/${memory.memory_id}`, { text: 'Use pnpm, never npm — ünïcödé too' });
    await as('PUT', `/memories/${memory.memory_id}`, {
      metadata: { priority: 'high', tags: ['js', 'pm'], nested: { a: [1, 2] } },
    });
    await t.request(alice.key, { method: 'GET', url: `/api/v1/memories/${memory.memory_id}` });
    await t.container.access.flush();
    await as('POST', '/memories', { text: 'Global preference: short answers' });
    await as('POST', '/artifacts', {
      project: 'docs/design',
      slug: 'adr-1',
      title: 'ADR 1',
      content: '# First\n',
      labels: ['adr'],
      metadata: { owner: 'ops' },
    });
    for (const text of ['# Second\n', '# Third — 三\n']) {
      await as('PUT', `/artifacts/${encodeURIComponent('docs/design')}/adr-1`, { content: text });
    }
    await as('POST', '/artifacts', { project: 'notes', title: 'Plain', content: 'x', content_type: 'text/plain' });
  });
  afterAll(async () => t?.close());

  const exportOf = async (key: string) => {
    const res = await t.request(key, { method: 'GET', url: '/api/v1/export' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="cairn-export-\d{4}-\d\d-\d\d\.jsonl"$/);
    return parse(res.body);
  };
  const importInto = (key: string, body: string, query = '') =>
    t.request(key, { method: 'POST', url: `/api/v1/import${query}`, headers: NDJSON, payload: body });

  it('exports everything of the user, in order, with versions and counts', async () => {
    const lines = await exportOf(alice.key);
    expect(lines[0]).toEqual({ type: 'header', format: 'cairn-export', version: 1, exported_at: expect.any(String) });
    expect(lines.map((l) => l.type)).toEqual([
      'header',
      'prompt',
      'prompt',
      'memory',
      'memory_version',
      'memory_version',
      'memory',
      'artifact',
      'artifact_version',
      'artifact_version',
      'artifact',
      'end',
    ]);
    expect(lines.at(-1)).toEqual({ type: 'end', counts: { prompts: 2, memories: 2, artifacts: 2 } });
    const review = lines.find((l) => l.slug === 'review');
    expect(review).toMatchObject({
      version: 3,
      status: 'published',
      available_in_mcp: true,
      labels: ['code', 'review'],
    });
    expect(review?.versions.map((v: Line) => [v.version, v.commit_message])).toEqual([
      [1, null],
      [2, 'care'],
      [3, null],
    ]);
    const memory = lines.find((l) => l.type === 'memory' && l.project_name === 'acme/web');
    expect(memory?.last_accessed_at).toMatch(/Z$/);
    expect(memory?.version).toBe(3);
    const memoryVersions = lines.filter((l) => l.type === 'memory_version');
    expect(memoryVersions.map((v) => [v.memory_id, v.version, v.text, v.metadata])).toEqual([
      [memory?.memory_id, 1, 'Use yarn — ünïcödé too', { category: 'tooling', priority: 'low', tags: ['js'] }],
      [
        memory?.memory_id,
        2,
        'Use pnpm, never npm — ünïcödé too',
        { category: 'tooling', priority: 'low', tags: ['js'] },
      ],
    ]);
    expect(lines.find((l) => l.type === 'memory' && l.project_name === null)?.version).toBe(1);
    const versions = lines.filter((l) => l.type === 'artifact_version');
    expect(versions.map((v) => [v.version, v.content])).toEqual([
      [1, '# First\n'],
      [2, '# Second\n'],
    ]);
    const other = await exportOf(bob.key);
    expect(other.map((l) => l.type)).toEqual(['header', 'end']);
  });

  it('imports into a fresh account so that its export has identical content; again changes nothing', async () => {
    const original = await exportOf(alice.key);
    const carol = await t.user();
    const first = await importInto(carol.key, toBody(original));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({
      dry_run: false,
      created: { prompts: 2, memories: 2, artifacts: 2 },
      updated: { prompts: 0, memories: 0, artifacts: 0 },
      unchanged: { prompts: 0, memories: 0, artifacts: 0 },
    });
    const copied = await exportOf(carol.key);
    expect(content(copied)).toEqual(content(original));
    // Another account's ids are taken: the copies have their own.
    const ids = (lines: Line[]) => lines.map((l) => l.id ?? l.memory_id).filter(Boolean);
    expect(ids(copied).some((id) => ids(original).includes(id))).toBe(false);

    const again = await importInto(carol.key, toBody(original));
    expect(again.json()).toMatchObject({
      created: { prompts: 0, memories: 0, artifacts: 0 },
      updated: { prompts: 0, memories: 0, artifacts: 0 },
      unchanged: { prompts: 2, memories: 2, artifacts: 2 },
    });
    const after = await exportOf(carol.key);
    expect(after.slice(1)).toEqual(copied.slice(1));

    // The copy works like the original: render resolves the copied reference and its schema default.
    const rendered = await t.request(carol.key, {
      method: 'POST',
      url: '/api/v1/prompts/review/render',
      payload: { variables: { pr: '#1' } },
    });
    expect(rendered.json().content).toBe('Review #1 carefully. Write Go idiomatically.');
    const search = await t.request(carol.key, { method: 'GET', url: '/api/v1/memories?search=pnpm' });
    expect(search.json().memories.map((m: Line) => m.text)).toEqual(['Use pnpm, never npm — ünïcödé too']);
    // The copied history works like the original: version 1 restores.
    const copiedId = search.json().memories[0].memory_id;
    const history = await t.request(carol.key, { method: 'GET', url: `/api/v1/memories/${copiedId}/versions` });
    expect(history.json().versions.map((v: Line) => [v.version, v.current])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
    const restored = await t.request(carol.key, {
      method: 'POST',
      url: `/api/v1/memories/${copiedId}/restore`,
      payload: { version: 1 },
    });
    expect(restored.json()).toMatchObject({ version: 4, text: 'Use yarn — ünïcödé too' });
  });

  it('refuses memory versions out of place, and keeps only the retention of an imported history', async () => {
    const original = await exportOf(alice.key);
    const dave = await t.user();
    const memoryIndex = original.findIndex((l) => l.type === 'memory');
    const [v1, v2] = original.filter((l) => l.type === 'memory_version') as [Line, Line];
    const misplaced = [...original];
    // A version after the wrong memory, and one not earlier than its memory's version.
    misplaced.splice(memoryIndex + 4, 0, { ...v1 });
    misplaced.splice(memoryIndex + 1, 0, { ...v2, version: 3 });
    const refused = await importInto(dave.key, toBody(misplaced));
    expect(refused.statusCode).toBe(400);
    const details = refused.json().details;
    expect(Object.values(details)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Version 3 of memory '.*' is not a distinct earlier version$/),
        expect.stringMatching(/must follow that memory's line$/),
      ]),
    );
    expect((await exportOf(dave.key)).map((l) => l.type)).toEqual(['header', 'end']);
    const badText = original.map((l) => (l.type === 'memory_version' ? { ...l, text: ' ' } : l));
    expect((await importInto(dave.key, toBody(badText))).statusCode).toBe(400);

    // A server keeping one previous version imports only the newest kept one.
    const small = await createTestApp(dialect, { MEMORY_VERSION_RETENTION: '1' });
    try {
      const erin = await small.user();
      const res = await small.request(erin.key, {
        method: 'POST',
        url: '/api/v1/import',
        headers: NDJSON,
        payload: toBody(original),
      });
      expect(res.statusCode, res.body).toBe(200);
      const list = await small.request(erin.key, { method: 'GET', url: '/api/v1/memories?search=pnpm' });
      const id = list.json().memories[0].memory_id;
      const history = await small.request(erin.key, { method: 'GET', url: `/api/v1/memories/${id}/versions` });
      expect(history.json().versions.map((v: Line) => v.version)).toEqual([3, 2]);
    } finally {
      await small.close();
    }
  });

  it('re-importing your own export changes nothing', async () => {
    const original = await exportOf(alice.key);
    const res = await importInto(alice.key, toBody(original));
    expect(res.json().unchanged).toEqual({ prompts: 2, memories: 2, artifacts: 2 });
    expect((await exportOf(alice.key)).slice(1)).toEqual(original.slice(1));
  });

  it('reports in a dry run what would change, changes nothing, then applies it', async () => {
    const dave = await t.user();
    await importInto(dave.key, toBody(await exportOf(alice.key)));
    const before = await exportOf(dave.key);
    const edited = structuredClone(before).map((line) => {
      if (line.slug === 'review') return { ...line, content: 'Review {{pr}} briefly. @base-style' };
      if (line.type === 'memory' && line.project_name === null) return { ...line, text: 'Global: short answers' };
      return line;
    });
    edited.splice(edited.length - 1, 0, {
      type: 'artifact',
      id: 'not-an-id',
      project: 'new',
      slug: 'added',
      title: 'Added',
      description: '',
      content: 'new',
      content_type: 'text/plain',
      labels: [],
      metadata: {},
      version: 1,
      created_at: '2026-01-02T03:04:05.000Z',
      updated_at: '2026-01-02T03:04:05.000Z',
    });
    (edited.at(-1) as Line).counts.artifacts = 3;

    const dry = await importInto(dave.key, toBody(edited), '?dry_run=true');
    expect(dry.statusCode, dry.body).toBe(200);
    const expected = {
      created: { prompts: 0, memories: 0, artifacts: 1 },
      updated: { prompts: 1, memories: 1, artifacts: 0 },
      unchanged: { prompts: 1, memories: 1, artifacts: 2 },
    };
    expect(dry.json()).toEqual({ dry_run: true, ...expected });
    expect((await exportOf(dave.key)).slice(1)).toEqual(before.slice(1));

    const real = await importInto(dave.key, toBody(edited));
    expect(real.json()).toEqual({ dry_run: false, ...expected });
    const prompt = (await t.request(dave.key, { method: 'GET', url: '/api/v1/prompts/review' })).json();
    expect(prompt).toMatchObject({ content: 'Review {{pr}} briefly. @base-style', version: 4 });
    const version = await t.request(dave.key, { method: 'GET', url: '/api/v1/prompts/review/versions/4' });
    expect(version.json().commit_message).toBe('Imported');
    const added = await t.request(dave.key, { method: 'GET', url: '/api/v1/artifacts/new/added' });
    expect(added.json()).toMatchObject({ content: 'new', created_at: '2026-01-02T03:04:05.000Z' });
    expect(added.json().id).toMatch(/^art_/);
  });

  it('refuses an invalid bundle, naming the lines, and changes nothing', async () => {
    const erin = await t.user();
    const good = await exportOf(alice.key);
    const cases: Array<[string, string, RegExp]> = [
      ['not JSON', `${toBody(good.slice(0, 2))}{oops\n${toBody(good.slice(2))}`, /"line 3":"Not valid JSON"/],
      ['truncated', toBody(good.slice(0, -1)), /end line is missing/],
      ['no header', toBody(good.slice(1)), /"line 1":"The bundle must start with its header line"/],
      [
        'wrong counts',
        toBody([...good.slice(0, -1), { type: 'end', counts: { prompts: 9, memories: 2, artifacts: 2 } }]),
        /end line counts/,
      ],
      ['future version', toBody([{ ...good[0], version: 2 }, ...good.slice(1)]), /Unsupported bundle version/],
      [
        'invalid prompt',
        toBody(good.map((l) => (l.slug === 'review' ? { ...l, title: '' } : l))),
        /"line \d+":"title: Title is required"/,
      ],
      [
        'schema for an unknown variable',
        toBody(good.map((l) => (l.slug === 'review' ? { ...l, variable_schema: { nope: {} } } : l))),
        /does not use: nope/,
      ],
      [
        'altered artifact',
        toBody(good.map((l) => (l.type === 'artifact' && l.slug === 'adr-1' ? { ...l, content: 'tampered' } : l))),
        /sha256: Does not match the content/,
      ],
      [
        'orphan version',
        toBody(good.filter((l) => !(l.type === 'artifact' && l.slug === 'adr-1'))),
        /must follow that artifact's line/,
      ],
      ['duplicate slug', toBody([...good.slice(0, 2), ...good.slice(1)]), /A second prompt with slug/],
      ['empty', '', /The bundle is empty/],
    ];
    for (const [name, body, message] of cases) {
      const res = await importInto(erin.key, body);
      expect(res.statusCode, name).toBe(400);
      expect(res.json().error, name).toBe('validation_error');
      expect(JSON.stringify(res.json()), name).toMatch(message);
    }
    expect((await exportOf(erin.key)).map((l) => l.type)).toEqual(['header', 'end']);
  });

  it('takes bundles only as JSON Lines, and only with a key for content', async () => {
    const json = await t.request(bob.key, { method: 'POST', url: '/api/v1/import', payload: { type: 'header' } });
    expect(json.statusCode).toBe(415);
    expect(json.json().message).toMatch(/application\/x-ndjson/);
    const text = await t.request(bob.key, {
      method: 'POST',
      url: '/api/v1/import',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.statusCode).toBe(415);
    const market = await t.key(alice.email, ['marketplace']);
    expect((await t.request(market.key, { method: 'GET', url: '/api/v1/export' })).statusCode).toBe(401);
    expect((await t.request(undefined, { method: 'GET', url: '/api/v1/export' })).statusCode).toBe(401);
  });
});

describe('import size limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { IMPORT_MAX_BYTES: '2048' });
  });
  afterAll(async () => t?.close());

  it('answers 413 for a bundle over IMPORT_MAX_BYTES, announced or streamed', async () => {
    const { key } = await t.user();
    const big = `${JSON.stringify({ type: 'header', format: 'cairn-export', version: 1, exported_at: new Date().toISOString() })}\n${' '.repeat(4000)}\n`;
    const res = await t.request(key, { method: 'POST', url: '/api/v1/import', headers: NDJSON, payload: big });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      error: 'payload_too_large',
      message: 'The bundle is larger than the import limit of 2048 bytes',
    });
  });
});
