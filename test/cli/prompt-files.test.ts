import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliWorld } from '../helpers/cli-server.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

// Every test spawns the built CLI synchronously several times: give a loaded two-core machine room.
describe.each(DIALECTS)('prompts as files, render and versions (built binary, %s)', { timeout: 60_000 }, (dialect) => {
  let world: CliWorld;
  let key = '';
  let env: Record<string, string> = {};
  let dir = '';
  const trailing = 'Summarise {{topic}} for @audience.\n\n\t \n';

  beforeAll(async () => {
    world = await CliWorld.start(dialect);
    key = world.userWithKey('pat@example.com', 'cli');
    env = { CAIRN_URL: world.base, CAIRN_API_KEY: key };
    dir = mkdtempSync(join(tmpdir(), 'cairn-prompts-'));
    for (const body of [
      {
        title: 'Summary',
        slug: 'summary',
        content: trailing,
        labels: ['writing'],
        variable_schema: { topic: { description: 'What to summarise', enum: ['news', 'code'] } },
      },
      { title: 'Audience', slug: 'audience', content: 'engineers', status: 'published', available_in_mcp: true },
      { title: 'Front matter lookalike', slug: 'lookalike', content: '---\ntitle: not front matter\n---\nbody' },
    ]) {
      expect((await world.api(key, 'POST', '/prompts', body)).status).toBe(201);
    }
  });
  afterAll(async () => world?.stop());

  const version = async (slug: string) => (await world.api(key, 'GET', `/prompts/${slug}`)).body.version as number;
  const versionCount = async (slug: string) =>
    (await world.api(key, 'GET', `/prompts/${slug}/versions`)).body.total as number;

  it('pull writes one <slug>.md per prompt: front matter with the version, then the content exactly', () => {
    const pulled = world.cairn(['prompts', 'pull', dir], { env });
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe(`Pulled 3 prompts into ${dir}: 3 new, 0 updated, 0 unchanged, 0 skipped\n`);
    expect(readdirSync(dir).sort()).toEqual(['audience.md', 'lookalike.md', 'summary.md']);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toBe(
      [
        '---',
        'slug: summary',
        'title: Summary',
        'description: ""',
        'labels:',
        '  - writing',
        'status: draft',
        'available_in_mcp: false',
        'variable_schema:',
        '  topic:',
        '    description: What to summarise',
        '    enum:',
        '      - news',
        '      - code',
        'version: 1',
        '---',
        // the content, then the one newline every file ends with (stripped again on reading)
        `${trailing}\n`,
      ].join('\n'),
    );
    expect(readFileSync(join(dir, 'lookalike.md'), 'utf8')).toMatch(
      /\nversion: 1\n---\n---\ntitle: not front matter\n---\nbody\n$/,
    );
    // A second pull finds nothing to write.
    expect(world.cairn(['prompts', 'pull', dir], { env }).stdout).toMatch(/0 new, 0 updated, 3 unchanged/);
    // And costs one request (a full list), not one per prompt: whoami itself is one.
    const remaining = () => world.json(['whoami'], { env }).rate_limit.remaining as number;
    const before = remaining();
    world.cairn(['prompts', 'pull', dir], { env });
    expect(before - remaining()).toBe(2);
  });

  it('push with no change sends nothing and creates no version', async () => {
    const before = await versionCount('summary');
    const updatedAt = (await world.api(key, 'GET', '/prompts/summary')).body.updated_at;
    const pushed = world.cairn(['prompts', 'push', dir], { env });
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toBe('Pushed: 0 created, 0 updated, 3 unchanged, 0 conflicts\n');
    const remaining = () => world.json(['whoami'], { env }).rate_limit.remaining as number;
    const left = remaining();
    world.cairn(['prompts', 'push', dir], { env });
    expect(left - remaining()).toBe(2); // the push's one list request, and whoami
    expect(await versionCount('summary')).toBe(before);
    expect(await version('summary')).toBe(1);
    expect((await world.api(key, 'GET', '/prompts/summary')).body.updated_at).toBe(updatedAt);
  });

  it('an edited file pushes as exactly one new version; the file records it, so a second push is a no-op', async () => {
    const file = join(dir, 'summary.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Summarise', 'Briefly summarise'));
    const pushed = world.json(['prompts', 'push', dir], { env });
    expect(pushed.find((r: Json) => r.slug === 'summary')).toMatchObject({ outcome: 'updated', version: 2 });
    expect(pushed.filter((r: Json) => r.outcome === 'unchanged')).toHaveLength(2);
    const remote = (await world.api(key, 'GET', '/prompts/summary')).body;
    expect(remote.content).toBe(trailing.replace('Summarise', 'Briefly summarise'));
    expect(remote.version).toBe(2);
    expect(await versionCount('summary')).toBe(2);
    expect(readFileSync(file, 'utf8')).toMatch(/\nversion: 2\n---\n/);

    const again = world.cairn(['prompts', 'push', dir], { env });
    expect(again.stdout).toBe('Pushed: 0 created, 0 updated, 3 unchanged, 0 conflicts\n');
    expect(await versionCount('summary')).toBe(2);
  });

  it('a prompt changed on the server since the pull is a conflict: not overwritten, exit 4; --force overrides', async () => {
    expect((await world.api(key, 'PUT', '/prompts/audience', { content: 'senior engineers' })).status).toBe(200);
    const file = join(dir, 'audience.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/engineers\n$/, 'managers\n'));
    const pushed = world.cairn(['prompts', 'push', dir], { env });
    expect(pushed.code).toBe(4);
    expect(pushed.stdout).toContain(`conflict  ${file}: changed on the server since version 1 was pulled (now 2)`);
    expect(pushed.stdout).toMatch(/0 created, 0 updated, 2 unchanged, 1 conflicts/);
    expect(pushed.stderr).toMatch(/^cairn: 1 conflict: not overwritten/);
    expect((await world.api(key, 'GET', '/prompts/audience')).body.content).toBe('senior engineers');

    // pull refuses to overwrite the unpushed local edit, too
    const pulled = world.cairn(['prompts', 'pull', dir], { env });
    expect(pulled.code).toBe(4);
    expect(pulled.stdout).toContain('skipped');
    expect(readFileSync(file, 'utf8')).toMatch(/managers\n$/);

    const forced = world.cairn(['prompts', 'push', dir, '--force'], { env });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/1 updated/);
    const remote = (await world.api(key, 'GET', '/prompts/audience')).body;
    expect(remote).toMatchObject({ content: 'managers', version: 3, status: 'published', available_in_mcp: true });
    expect(readFileSync(file, 'utf8')).toMatch(/\nversion: 3\n---\n/);
  });

  it('a new file is created on the server; a bad file stops the push before anything is sent', async () => {
    writeFileSync(join(dir, 'greeting.md'), '---\ntitle: Greeting\nlabels: [hello]\n---\nHello {{name}}!\n');
    const pushed = world.cairn(['prompts', 'push', dir], { env });
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/^created {3}.*greeting\.md \(version 1\)\n/m);
    expect((await world.api(key, 'GET', '/prompts/greeting')).body).toMatchObject({
      content: 'Hello {{name}}!',
      labels: ['hello'],
    });
    expect(readFileSync(join(dir, 'greeting.md'), 'utf8')).toMatch(
      /^---\nslug: greeting\n[\s\S]*\nversion: 1\n---\nHello \{\{name\}\}!\n$/,
    );

    const bad = mkdtempSync(join(tmpdir(), 'cairn-bad-'));
    writeFileSync(join(bad, 'a.md'), '---\ntitle: A\n---\nA');
    writeFileSync(join(bad, 'b.md'), '---\ntitle: B\nstatus: archived\n---\nB');
    const refused = world.cairn(['prompts', 'push', bad], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/b\.md: status: /);
    expect((await world.api(key, 'GET', '/prompts/a')).status).toBe(404);
  });

  it('edit sends If-Match: a prompt changed while the editor was open is refused (exit 4)', async () => {
    const editorDir = mkdtempSync(join(tmpdir(), 'cairn-editor-'));
    const editor = join(editorDir, 'editor.mjs');
    // The "editor" changes the prompt on the server behind the CLI's back, then edits the file.
    writeFileSync(
      editor,
      `import { readFileSync, writeFileSync } from 'node:fs';
await fetch(${JSON.stringify(`${world.base}/api/v1/prompts/greeting`)}, { method: 'PUT', headers: { authorization: 'Bearer ${key}', 'content-type': 'application/json' }, body: JSON.stringify({ content: 'Hi {{name}}' }) });
writeFileSync(process.argv[2], readFileSync(process.argv[2], 'utf8').replace('Hello', 'Howdy'));
`,
    );
    const result = world.cairn(['prompts', 'edit', 'greeting'], {
      env: { ...env, EDITOR: `${process.execPath} ${editor}` },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/changed on the server since it was read/);
    expect((await world.api(key, 'GET', '/prompts/greeting')).body.content).toBe('Hi {{name}}');
  });

  it('render fills variables (from --var and --vars-file), resolves references, and is strict unless told not to', () => {
    const rendered = world.cairn(['prompts', 'render', 'summary', '--var', 'topic=news'], { env });
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toBe('Briefly summarise news for managers.\n\n\t \n');
    const varsFile = join(dir, '..', `vars-${Date.now()}.json`);
    writeFileSync(varsFile, JSON.stringify({ topic: 'code' }));
    const json = world.json(['prompts', 'render', 'summary', '--vars-file', varsFile, '--no-resolve'], { env });
    expect(json).toMatchObject({
      content: 'Briefly summarise code for @audience.\n\n\t \n',
      variables_used: ['topic'],
    });
    const missing = world.cairn(['prompts', 'render', 'summary'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/topic/);
    const lenient = world.json(['prompts', 'render', 'summary', '--no-strict'], { env });
    expect(lenient.variables_missing).toEqual(['topic']);
    expect(world.cairn(['prompts', 'render', 'summary', '--var', 'oops'], { env }).code).toBe(2);
  });

  it('versions lists newest first and --show prints one version', () => {
    const listed = world.json(['prompts', 'versions', 'summary'], { env });
    expect(listed.versions.map((v: Json) => v.version)).toEqual([2, 1]);
    const table = world.cairn(['prompts', 'versions', 'summary'], { env });
    expect(table.stdout).toMatch(/^VERSION\s+TITLE\s+MESSAGE\s+CREATED\n2\s+Summary\s/);
    expect(world.cairn(['prompts', 'versions', 'summary', '--show', '1'], { env }).stdout).toBe(trailing);
    expect(world.cairn(['prompts', 'versions', 'summary', '--show', '9'], { env }).code).toBe(3);
  });

  it('pull --environment writes only the prompts with that environment, each as the version it points to', async () => {
    expect(
      (await world.api(key, 'POST', '/prompts', { title: 'Greeting', slug: 'staged-hello', content: 'hello v1' }))
        .status,
    ).toBe(201);
    expect((await world.api(key, 'PUT', '/prompts/staged-hello', { content: 'hello v2' })).status).toBe(200);
    expect((await world.api(key, 'PUT', '/prompts/staged-hello/environments/production', { version: 1 })).status).toBe(
      200,
    );
    const envDir = mkdtempSync(join(tmpdir(), 'cairn-prompts-env-'));
    const pulled = world.json(['prompts', 'pull', envDir, '--environment', 'production'], { env });
    expect(pulled).toEqual([expect.objectContaining({ slug: 'staged-hello', version: 1, outcome: 'written' })]);
    expect(readdirSync(envDir)).toEqual(['staged-hello.md']);
    expect(readFileSync(join(envDir, 'staged-hello.md'), 'utf8')).toMatch(/\nversion: 1\n---\nhello v1\n$/);
    // An environment no prompt has: nothing to pull.
    expect(world.json(['prompts', 'pull', envDir, '--environment', 'staging'], { env })).toEqual([]);
    // `get --environment`, and the clear 404 of a prompt without it (exit 3, not found).
    expect(
      world.cairn(['prompts', 'get', 'staged-hello', '--environment', 'production', '--raw'], { env }).stdout,
    ).toBe('hello v1');
    const missing = world.cairn(['prompts', 'get', 'staged-hello', '--environment', 'staging'], { env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("Prompt 'staged-hello' has no environment 'staging'");
  });
});
