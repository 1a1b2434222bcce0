import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliWorld } from '../helpers/cli-server.js';
import { awayFromHourBoundary } from '../helpers/clock.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';
import { freePort } from '../helpers/net.js';

// Every test spawns the built CLI synchronously several times: give a loaded two-core machine room.
describe.each(DIALECTS)('user CLI against a real server (built binary, %s)', { timeout: 60_000 }, (dialect) => {
  let world: CliWorld;
  let key = '';
  let configPath = '';
  beforeAll(async () => {
    world = await CliWorld.start(dialect);
    key = world.userWithKey('ada@example.com', 'cli');
    configPath = join(world.home, '.config', 'cairn', 'config.json');
  });
  afterAll(async () => world?.stop());

  describe('login, whoami, logout', () => {
    it('says how to log in when there is no configuration (exit 5)', () => {
      const result = world.cairn(['prompts', 'list']);
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(/^cairn: not logged in .*cairn login --url URL.*CAIRN_URL and CAIRN_API_KEY/);
    });

    it('refuses a wrong key with exit 5 and stores nothing', () => {
      const wrong = `svk_${'x'.repeat(64)}`;
      const result = world.cairn(['login', '--url', world.base], { input: `${wrong}\n` });
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(/refused the API key/);
      expect(result.stderr).toMatch(/nothing was stored/);
      expect(result.stderr + result.stdout).not.toContain(wrong);
      expect(existsSync(configPath)).toBe(false);
    });

    it('refuses an empty key and a server that is not there', async () => {
      expect(world.cairn(['login', '--url', world.base], { input: '\n' }).code).toBe(2);
      const down = `http://127.0.0.1:${await freePort()}`;
      const result = world.cairn(['login', '--url', down], { input: key });
      expect(result.code).toBe(7);
      expect(result.stderr).toContain(down);
      expect(existsSync(configPath)).toBe(false);
    });

    it('has no way to pass the key as an argument', () => {
      const result = world.cairn(['login', '--url', world.base, '--key', key]);
      expect(result.code).toBe(2);
      expect(existsSync(configPath)).toBe(false);
    });

    it('stores URL and key from stdin in a 0600 file in a 0700 directory, after checking them', () => {
      const result = world.cairn(['login', '--url', `${world.base}/api/v1/`], { input: `${key}\n` });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(key.slice(0, 12));
      expect(result.stdout).not.toContain(key);
      expect(statSync(configPath).mode & 0o777).toBe(0o600);
      expect(statSync(join(world.home, '.config', 'cairn')).mode & 0o777).toBe(0o700);
      expect(JSON.parse(readFileSync(configPath, 'utf8'))).toEqual({ url: world.base, api_key: key });
    });

    it('whoami works for a key of any integration (one request to /me)', () => {
      const mcpOnly = world.userWithKey('whoami-mcp@example.com', 'mcp_server');
      const info = world.json(['whoami'], { env: { CAIRN_API_KEY: mcpOnly } });
      expect(info.user.email).toBe('whoami-mcp@example.com');
      expect(info.key.integrations).toEqual(['mcp_server']);
      expect(info.rate_limit.limit - info.rate_limit.remaining).toBe(1);
    });

    it('whoami shows the server, the key prefix and the rate limit, never the key', () => {
      const table = world.cairn(['whoami']);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(world.base);
      expect(table.stdout).toContain(`${key.slice(0, 12)}…`);
      expect(table.stdout).not.toContain(key);
      expect(table.stdout).toMatch(/Rate limit: \d+ of 1000 requests left this hour/);
      const info = world.json(['whoami']);
      expect(info).toMatchObject({
        url: world.base,
        url_source: 'config file',
        key_prefix: `${key.slice(0, 12)}…`,
        key_source: 'config file',
        config_file: configPath,
        rate_limit: { limit: 1000 },
        user: { email: expect.stringContaining('@'), tier: 'free' },
        key: { prefix: key.slice(0, 12), integrations: expect.arrayContaining(['cli']) },
      });
      expect(table.stdout).toMatch(/Account: {4}\S+@\S+ \(free tier\)/);
      expect(info.rate_limit.remaining).toBeLessThan(1000);
      expect(Date.parse(info.rate_limit.reset)).toBeGreaterThan(Date.now());
    });

    it('CAIRN_URL and CAIRN_API_KEY override the file', () => {
      const other = world.userWithKey('grace@example.com', 'ai_tools');
      const info = world.json(['whoami'], { env: { CAIRN_API_KEY: other } });
      expect(info).toMatchObject({ key_source: 'environment', url_source: 'config file' });
      expect(info.key_prefix).toBe(`${other.slice(0, 12)}…`);
      const bad = world.cairn(['prompts', 'list'], { env: { CAIRN_API_KEY: `svk_${'y'.repeat(64)}` } });
      expect(bad.code).toBe(5);
      expect(bad.stderr).toMatch(/check CAIRN_API_KEY/);
    });
  });

  describe('errors', () => {
    it('401 for a key without the needed integration (exit 5, names the integration)', () => {
      const mcpOnly = world.userWithKey('ada@example.com', 'mcp_server');
      const result = world.cairn(['prompts', 'list'], { env: { CAIRN_API_KEY: mcpOnly } });
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(/ai_tools|cli/);
      expect(result.stderr).toMatch(/run `cairn login`|CAIRN_API_KEY/);
    });

    it('server down: exit 7 naming the URL', async () => {
      const down = `http://127.0.0.1:${await freePort()}`;
      const result = world.cairn(['memories', 'list'], { env: { CAIRN_URL: down } });
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(
        new RegExp(`^cairn: cannot reach the Cairn server at ${down} \\(ECONNREFUSED\\)\\n$`),
      );
    });

    it('429 once the hourly limit is used up: exit 6 with the reset time', async () => {
      await awayFromHourBoundary(15_000); // three CLI runs must fall in one hour's window
      const limited = world.userWithKey('tiny@example.com', 'cli', 2);
      const env = { CAIRN_API_KEY: limited };
      expect(world.cairn(['prompts', 'list'], { env }).code).toBe(0);
      expect(world.cairn(['prompts', 'list'], { env }).code).toBe(0);
      const refused = world.cairn(['prompts', 'list'], { env });
      expect(refused.code).toBe(6);
      expect(refused.stderr).toMatch(/rate limit reached: .*resets at \d{4}-\d\d-\d\dT\d\d:00:00Z \(in \d+ (s|min)\)/);
    });

    it('unknown command and bad options are usage errors (exit 2)', () => {
      expect(world.cairn(['prompts', 'frobnicate']).code).toBe(2);
      expect(world.cairn(['prompts', 'list', '--per-page', 'many']).code).toBe(2);
      expect(world.cairn(['prompts', 'list', '--status', 'archived']).code).toBe(2);
    });
  });

  describe('prompts', () => {
    const content = 'Review this {{language}} code.\nFollow @style-guide.\n\n  ';

    it('creates from stdin, lists as a table and as JSON, and reads back the exact content', () => {
      const created = world.json(
        [
          'prompts',
          'create',
          '--title',
          'Code review',
          '--label',
          'review',
          '--label',
          'ts',
          '--description',
          'For PRs',
        ],
        { input: content },
      );
      expect(created).toMatchObject({
        slug: 'code-review',
        title: 'Code review',
        message: 'Prompt created successfully',
      });
      expect(created.id).toMatch(/^prm_/);

      const file = join(mkdtempSync(join(tmpdir(), 'cairn-cli-')), 'guide.md');
      writeFileSync(file, 'Be kind.');
      const plain = world.cairn([
        'prompts',
        'create',
        '--title',
        'Style guide',
        '--file',
        file,
        '--status',
        'published',
        '--mcp',
        '--slug',
        'style-guide',
      ]);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toMatch(/^Created prompt style-guide \(prm_/);

      const table = world.cairn(['prompts', 'list']);
      expect(table.code).toBe(0);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^SLUG\s+TITLE\s+STATUS\s+MCP\s+LABELS\s+UPDATED$/);
      expect(lines[1]).toMatch(/^style-guide\s+Style guide\s+published\s+yes\s+\d{4}-/);
      expect(lines[2]).toMatch(/^code-review\s+Code review\s+draft\s+review,ts\s+\d{4}-/);

      const listed = world.json(['prompts', 'list', '--label', 'review']);
      expect(listed.total).toBe(1);
      expect(listed.prompts[0]).toMatchObject({ slug: 'code-review', labels: ['review', 'ts'] });
      expect(world.json(['prompts', 'list', '--status', 'published', '--per-page', '1']).prompts).toHaveLength(1);
      expect(world.json(['prompts', 'list', '--search', 'kind']).prompts.map((p: Json) => p.slug)).toEqual([
        'style-guide',
      ]);

      const raw = world.cairn(['prompts', 'get', 'code-review', '--raw']);
      expect(raw.stdout).toBe(content);
      const full = world.json(['prompts', 'get', created.id]);
      expect(full).toMatchObject({ slug: 'code-review', content, variables: ['language'], description: 'For PRs' });
      const shown = world.cairn(['prompts', 'get', 'code-review']);
      expect(shown.stdout).toMatch(/^Code review {2}\(code-review, prm_/);
      expect(shown.stdout).toContain('variables: language');
    });

    it('maps 404, 409 and 400 to exit codes 3, 4 and 2', () => {
      const missing = world.cairn(['prompts', 'get', 'no-such-prompt']);
      expect(missing.code).toBe(3);
      expect(missing.stderr).toMatch(/^cairn: .*not found/i);
      const taken = world.cairn(['prompts', 'create', '--title', 'Again', '--slug', 'code-review'], { input: 'x' });
      expect(taken.code).toBe(4);
      expect(taken.stderr).toMatch(/^cairn: conflict: /);
      const invalid = world.cairn(['prompts', 'create', '--title', '   '], { input: 'x' });
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toMatch(/^cairn: invalid input: title: /);
      const noContent = world.cairn(['prompts', 'create', '--title', 'Empty'], { input: '' });
      expect(noContent.code).toBe(2);
    });

    it('edit: opens $EDITOR, sends only what changed; saving unchanged sends nothing', async () => {
      const before = (await world.api(key, 'GET', '/prompts/code-review')).body;
      const noop = world.cairn(['prompts', 'edit', 'code-review'], { env: { EDITOR: 'true' } });
      expect(noop.code).toBe(0);
      expect(noop.stdout).toBe('No changes; nothing sent.\n');
      expect((await world.api(key, 'GET', '/prompts/code-review')).body.updated_at).toBe(before.updated_at);

      const dir = mkdtempSync(join(tmpdir(), 'cairn-editor-'));
      const editor = join(dir, 'editor.mjs');
      writeFileSync(
        editor,
        `import { readFileSync, writeFileSync } from 'node:fs';
const file = process.argv[2];
writeFileSync(file, readFileSync(file, 'utf8').replace('Review this', 'Carefully review this').replace('title: Code review', 'title: Careful review'));
`,
      );
      const edited = world.cairn(['prompts', 'edit', 'code-review'], {
        env: { VISUAL: `${process.execPath} ${editor}` },
      });
      expect(edited.stderr).toBe('');
      expect(edited.code).toBe(0);
      expect(edited.stdout).toMatch(/^Updated prompt code-review.*: title, content\n$/);
      const after = (await world.api(key, 'GET', '/prompts/code-review')).body;
      expect(after.title).toBe('Careful review');
      expect(after.content).toBe(content.replace('Review this', 'Carefully review this'));
      expect(after.labels).toEqual(['review', 'ts']);
    });

    it('edit keeps the edited file when the server refuses it', () => {
      const dir = mkdtempSync(join(tmpdir(), 'cairn-editor-'));
      const editor = join(dir, 'editor.mjs');
      writeFileSync(
        editor,
        `import { readFileSync, writeFileSync } from 'node:fs';
writeFileSync(process.argv[2], readFileSync(process.argv[2], 'utf8').replace(/^title: .*$/m, 'title: ""'));
`,
      );
      const result = world.cairn(['prompts', 'edit', 'code-review'], {
        env: { EDITOR: `${process.execPath} ${editor}` },
      });
      expect(result.code).toBe(2);
      const kept = /kept at (.+\.md)/.exec(result.stderr)?.[1];
      expect(kept && existsSync(kept)).toBe(true);
    });

    it('deletes without asking when not on a terminal, and --json gives the server message', () => {
      world.json(['prompts', 'create', '--title', 'Scratch'], { input: 'tmp' });
      expect(world.json(['prompts', 'delete', 'scratch'])).toEqual({ message: 'Prompt deleted successfully' });
      expect(world.cairn(['prompts', 'delete', 'scratch', '--yes']).code).toBe(3);
    });
  });

  describe('memories', () => {
    let id = '';
    it('adds from --content and from stdin, with title, project, category, priority and tags', () => {
      const added = world.json([
        'memories',
        'add',
        '--content',
        'Use strict TypeScript everywhere',
        '--title',
        'TS rules',
        '--project',
        'acme/backend',
        '--category',
        'coding_standards',
        '--priority',
        'high',
        '--tag',
        'ts',
        '--tag',
        'style',
      ]);
      expect(added).toMatchObject({
        text: 'Use strict TypeScript everywhere',
        project_name: 'acme/backend',
        metadata: { title: 'TS rules', category: 'coding_standards', priority: 'high', tags: ['ts', 'style'] },
        message: 'Memory created successfully',
      });
      id = added.memory_id;
      const piped = world.cairn(['memories', 'add', '--project', 'acme'], { input: 'Deploys happen on Tuesdays\n' });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toMatch(/^Added memory mem_\w+ to acme\n$/);
      // The same text again (case and final punctuation aside) is not added twice: the stored memory is named.
      const pipedId = /mem_\w+/.exec(piped.stdout)?.[0];
      const again = world.cairn(['memories', 'add', '--project', 'acme', 'deploys happen on tuesdays.']);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(`Already stored as memory ${pipedId} in acme (same text): nothing added\n`);
      const similar = world.cairn(['memories', 'add', '--project', 'acme', 'Deploys happen on Tuesdays only']);
      expect(similar.stdout).toMatch(
        new RegExp(
          `^Added memory mem_\\w+ to acme\n  similar: ${pipedId} \\(similarity 0\\.8\\); delete or update it if this one replaces it\n$`,
        ),
      );
      expect(world.cairn(['memories', 'delete', /mem_\w+/.exec(similar.stdout)?.[0] ?? '', '--yes']).code).toBe(0);
      expect(world.cairn(['memories', 'add', '--priority', 'urgent', '--content', 'x']).code).toBe(2);
    });

    it('sets expiry, pin and supersedes; list hides expired and superseded ones and shows the state', () => {
      const ids = (args: string[]) => world.json(args).memories.map((m: Json) => m.memory_id);
      const old = world.json(['memories', 'add', '--project', 'life', 'Lint with eslint']);
      const gone = world.json([
        'memories',
        'add',
        '--project',
        'life',
        '--expires-at',
        '2020-01-01T00:00:00Z',
        'Old freeze',
      ]);
      expect(gone.expires_at).toBe('2020-01-01T00:00:00.000Z');
      const added = world.cairn([
        'memories',
        'add',
        '--project',
        'life',
        '--supersedes',
        old.memory_id,
        '--pin',
        'Lint with biome',
      ]);
      expect(added.code).toBe(0);
      expect(added.stdout).toContain(`supersedes: ${old.memory_id}`);
      const newId = /mem_\w+/.exec(added.stdout)?.[0] ?? '';
      expect(ids(['memories', 'list', '--project', 'life'])).toEqual([newId]);
      expect(ids(['memories', 'list', '--project', 'life', '--stale']).sort()).toEqual(
        [old.memory_id, gone.memory_id].sort(),
      );
      expect(ids(['memories', 'list', '--project', 'life', '--include-expired'])).toHaveLength(3);
      const table = world.cairn(['memories', 'list', '--project', 'life', '--include-expired']);
      expect(table.stdout).toMatch(/STATE/);
      expect(table.stdout).toContain('pinned');
      expect(table.stdout).toContain('expired');
      expect(table.stdout).toContain(`superseded by ${newId}`);
      expect(world.cairn(['memories', 'get', old.memory_id]).stdout).toContain(`superseded by: ${newId}`);
      // Links removed, expiry cleared, unpinned.
      const updated = world.json(['memories', 'update', newId, '--clear-supersedes', '--unpin']);
      expect(updated.pinned).toBe(false);
      world.json(['memories', 'update', gone.memory_id, '--clear-expiry']);
      expect(ids(['memories', 'list', '--project', 'life'])).toHaveLength(3);
      expect(
        world.cairn(['memories', 'update', newId, '--ttl', '60', '--expires-at', '2030-01-01T00:00:00Z']).code,
      ).toBe(2);
      expect(world.cairn(['memories', 'add', '--expires-at', 'soon', 'bad expiry']).code).not.toBe(0);
    });

    it('searches (ranked, with scores), lists, gets, updates and deletes', () => {
      const found = world.json(['memories', 'search', 'typescript', '--project', 'acme/backend', '--limit', '5']);
      expect(found.memories[0]).toMatchObject({ memory_id: id });
      expect(typeof found.memories[0].score).toBe('number');
      const table = world.cairn(['memories', 'search', 'typescript']);
      expect(table.stdout).toMatch(/^ID\s+SCORE\s+PROJECT\s+PRIORITY\s+TAGS\s+TEXT\s+STATE\s+UPDATED\n/);
      expect(table.stdout).toContain('TS rules: Use strict TypeScript everywhere');

      expect(world.json(['memories', 'list', '--project', 'acme']).total).toBe(2);
      expect(world.json(['memories', 'list', '--tag', 'style']).memories.map((m: Json) => m.memory_id)).toEqual([id]);
      expect(world.json(['memories', 'get', id])).toMatchObject({
        memory_id: id,
        text: 'Use strict TypeScript everywhere',
      });

      const updated = world.json(['memories', 'update', id, '--priority', 'low', '--global', '--tag', 'typescript']);
      expect(updated).toMatchObject({
        project_name: null,
        metadata: { title: 'TS rules', category: 'coding_standards', priority: 'low', tags: ['typescript'] },
      });
      expect(world.cairn(['memories', 'update', id]).code).toBe(2);
      const fromStdin = world.cairn(['memories', 'update', id, '--file', '-'], { input: 'Strict TS, ESM only' });
      expect(fromStdin.code).toBe(0);
      expect(world.json(['memories', 'get', id]).text).toBe('Strict TS, ESM only');

      // History: the two updates kept the two states they replaced; restore brings the first back.
      const history = world.json(['memories', 'history', id]);
      expect(history.versions.map((v: Json) => [v.version, v.current])).toEqual([
        [3, true],
        [2, false],
        [1, false],
      ]);
      const historyTable = world.cairn(['memories', 'history', id, '--per-page', '2']);
      expect(historyTable.stdout).toMatch(
        /^VERSION\s+PROJECT\s+TEXT\s+WRITTEN\n3 \(current\)\s+\(global\)\s+Strict TS/,
      );
      expect(historyTable.stdout).toContain('2 of 3 shown');
      const shown = world.cairn(['memories', 'history', id, '--show', '1']);
      expect(shown.stdout).toMatch(new RegExp(`^${id} version 1\\nproject: acme/backend\\n`));
      expect(shown.stdout).toMatch(/\nUse strict TypeScript everywhere\n$/);
      const restored = world.cairn(['memories', 'restore', id, '1']);
      expect(restored.stdout).toBe(`Version 1 restored as version 4 (memory ${id})\n`);
      expect(world.json(['memories', 'get', id])).toMatchObject({
        text: 'Use strict TypeScript everywhere',
        project_name: 'acme/backend',
      });
      expect(world.cairn(['memories', 'restore', id, '99']).code).toBe(3);
      expect(world.cairn(['memories', 'restore', id, 'zero']).code).toBe(2);
      expect(world.cairn(['memories', 'history', 'mem_00000000000000000000000000']).code).toBe(3);

      expect(world.cairn(['memories', 'delete', id, '--yes']).stdout).toBe(`Deleted memory ${id}\n`);
      const gone = world.cairn(['memories', 'get', id]);
      expect(gone.code).toBe(3);
    });
  });

  describe('artifacts', () => {
    it('puts from a file (type from the extension) and stdin, creating then updating', () => {
      const dir = mkdtempSync(join(tmpdir(), 'cairn-art-'));
      const file = join(dir, 'schema.json');
      writeFileSync(file, '{"type": "object"}\n');
      const created = world.json(['artifacts', 'put', 'acme/backend/api-schema', file, '--label', 'api']);
      expect(created).toMatchObject({ project: 'acme/backend', slug: 'api-schema', title: 'schema', version: 1 });
      const full = world.json(['artifacts', 'get', 'acme/backend/api-schema']);
      expect(full).toMatchObject({
        content_type: 'application/json',
        content: '{"type": "object"}\n',
        labels: ['api'],
      });

      const updated = world.cairn(['artifacts', 'put', 'acme/backend/api-schema', '-', '--title', 'API schema'], {
        input: '{"type": "array"}',
      });
      expect(updated.stdout).toBe('Updated acme/backend/api-schema (version 2)\n');
      const after = world.json(['artifacts', 'get', 'acme/backend/api-schema']);
      expect(after).toMatchObject({ title: 'API schema', content_type: 'application/json', version: 2 });

      const notes = world.cairn(
        ['artifacts', 'put', 'acme/notes', '--title', 'Notes', '--content-type', 'text/plain'],
        {
          input: 'line one\n\n',
        },
      );
      expect(notes.stdout).toBe('Created acme/notes (version 1)\n');
    });

    it('gets the raw content exactly, to stdout or a file', () => {
      expect(world.cairn(['artifacts', 'get', 'acme/backend/api-schema']).stdout).toBe('{"type": "array"}');
      expect(world.cairn(['artifacts', 'get', 'acme/notes']).stdout).toBe('line one\n\n');
      const out = join(mkdtempSync(join(tmpdir(), 'cairn-out-')), 'notes.txt');
      const written = world.cairn(['artifacts', 'get', 'acme/notes', '-o', out]);
      expect(written.code).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe('line one\n\n');
    });

    it('lists with filters, and deletes', () => {
      const listed = world.json(['artifacts', 'list', '--project', 'acme/backend']);
      expect(listed.artifacts.map((a: Json) => `${a.project}/${a.slug}`)).toEqual(['acme/backend/api-schema']);
      expect(world.json(['artifacts', 'list', '--label', 'api']).total).toBe(1);
      const table = world.cairn(['artifacts', 'list']);
      expect(table.stdout).toMatch(/^ADDRESS\s+TITLE\s+TYPE\s+VERSION\s+SIZE\s+LABELS\s+UPDATED\n/);
      expect(table.stdout).toMatch(/acme\/notes\s+Notes\s+text\/plain\s+1\s+10\s/);

      expect(world.cairn(['artifacts', 'delete', 'acme/notes', '--yes']).stdout).toBe('Deleted artifact acme/notes\n');
      expect(world.cairn(['artifacts', 'get', 'acme/notes']).code).toBe(3);
      const bad = world.cairn(['artifacts', 'get', 'no-slash']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/<project>\/<slug>/);
    });
  });

  describe('one flag vocabulary for text (argument, --content, --file, stdin)', () => {
    const textFile = (text: string) => {
      const file = join(mkdtempSync(join(tmpdir(), 'cairn-flags-')), 'text.md');
      writeFileSync(file, text);
      return file;
    };

    it('memories add and update take the text as an argument, --content, --file or stdin', () => {
      const positional = world.json(['memories', 'add', 'Use pnpm', '--project', 'flags']);
      expect(positional).toMatchObject({ text: 'Use pnpm', project_name: 'flags' });
      const id = positional.memory_id;
      expect(world.json(['memories', 'add', '--content', 'From content']).text).toBe('From content');
      expect(world.json(['memories', 'add', '--file', textFile('From a file')]).text).toBe('From a file');
      expect(world.json(['memories', 'add'], { input: 'From stdin' }).text).toBe('From stdin');
      expect(world.json(['memories', 'add', '-'], { input: 'From stdin via -' }).text).toBe('From stdin via -');

      expect(world.json(['memories', 'update', id, 'Use pnpm 9']).text).toBe('Use pnpm 9');
      expect(world.json(['memories', 'update', id, '--content', 'Use pnpm 10']).text).toBe('Use pnpm 10');
      expect(world.json(['memories', 'update', id, '--file', textFile('Use bun')]).text).toBe('Use bun');
      expect(world.json(['memories', 'update', id, '-'], { input: 'Use deno' }).text).toBe('Use deno');
      // Metadata alone leaves the text as it is.
      expect(world.json(['memories', 'update', id, '--priority', 'high']).text).toBe('Use deno');

      const twice = world.cairn(['memories', 'add', 'one', '--content', 'two']);
      expect(twice.code).toBe(2);
      expect(twice.stderr).toBe('cairn: give the memory text once, not with an argument and --content\n');
      expect(world.cairn(['memories', 'update', id, 'one', '--file', textFile('two')]).code).toBe(2);
      expect(world.json(['memories', 'get', id]).text).toBe('Use deno');
    });

    it('prompts create takes the content as an argument, --content, --file or stdin (old spellings too)', () => {
      const cases: Array<[string, string[], string | undefined, string]> = [
        ['flag-arg', ['Content as an argument'], undefined, 'Content as an argument'],
        ['flag-content', ['--content', 'Content from --content'], undefined, 'Content from --content'],
        ['flag-file', ['--file', textFile('Content from --file\n')], undefined, 'Content from --file\n'],
        ['flag-stdin', [], 'Content from stdin', 'Content from stdin'],
        ['flag-dash-arg', ['-'], 'Content from - as argument', 'Content from - as argument'],
        ['flag-dash-file', ['--file', '-'], 'Content from --file -', 'Content from --file -'],
      ];
      for (const [slug, args, input, expected] of cases) {
        const created = world.cairn(['prompts', 'create', '--title', slug, '--slug', slug, ...args], { input });
        expect(created.code, `${slug}: ${created.stderr}`).toBe(0);
        expect(world.cairn(['prompts', 'get', slug, '--raw']).stdout, slug).toBe(expected);
      }
      const twice = world.cairn(['prompts', 'create', '--title', 'X', 'a', '--file', textFile('b')]);
      expect(twice.code).toBe(2);
      expect(twice.stderr).toBe('cairn: give the prompt content once, not with an argument and --file\n');
    });

    it('artifacts put takes a file argument (as before), --file, --content or stdin', () => {
      const file = textFile('# From a file\n');
      expect(world.json(['artifacts', 'put', 'flags/by-arg', file])).toMatchObject({ title: 'text', version: 1 });
      expect(world.json(['artifacts', 'get', 'flags/by-arg'])).toMatchObject({
        content: '# From a file\n',
        content_type: 'text/markdown',
      });
      expect(world.json(['artifacts', 'put', 'flags/by-file', '--file', file])).toMatchObject({ title: 'text' });
      expect(world.cairn(['artifacts', 'get', 'flags/by-file']).stdout).toBe('# From a file\n');
      world.json(['artifacts', 'put', 'flags/by-content', '--content', 'inline', '--title', 'Inline']);
      expect(world.cairn(['artifacts', 'get', 'flags/by-content']).stdout).toBe('inline');
      world.json(['artifacts', 'put', 'flags/by-stdin', '--title', 'Piped'], { input: 'piped' });
      expect(world.cairn(['artifacts', 'get', 'flags/by-stdin']).stdout).toBe('piped');
      const twice = world.cairn(['artifacts', 'put', 'flags/x', file, '--content', 'y']);
      expect(twice.code).toBe(2);
      expect(twice.stderr).toMatch(/^cairn: give the artifact content once/);
    });
  });

  it('logout forgets the stored key', () => {
    const result = world.cairn(['logout']);
    expect(result.stdout).toBe(`Logged out (removed ${configPath})\n`);
    expect(existsSync(configPath)).toBe(false);
    expect(world.cairn(['whoami']).code).toBe(5);
    expect(world.cairn(['logout']).stdout).toBe('Not logged in.\n');
  });
});
