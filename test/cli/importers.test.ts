import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliWorld } from '../helpers/cli-server.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

// Every test spawns the built CLI synchronously several times: give a loaded two-core machine room.
describe.each(DIALECTS)('importers and export/import (built binary, %s)', { timeout: 60_000 }, (dialect) => {
  let world: CliWorld;
  let key = '';
  let env: Record<string, string> = {};
  let work = '';

  beforeAll(async () => {
    world = await CliWorld.start(dialect);
    key = world.userWithKey('importer@example.com', 'cli');
    env = { CAIRN_URL: world.base, CAIRN_API_KEY: key };
    work = mkdtempSync(join(tmpdir(), 'cairn-import-'));
  });
  afterAll(async () => world?.stop());

  const memoriesOf = async (project: string) =>
    (await world.api(key, 'GET', `/memories?project_name=${encodeURIComponent(project)}&per_page=100`)).body
      .memories as Json[];

  describe('import memory-jsonl', () => {
    it('makes one memory per entity, with observations and relations as text', async () => {
      const result = world.cairn(['import', 'memory-jsonl', join(FIXTURES, 'memory.jsonl'), '--project', 'kg'], {
        env,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Imported: 3 created, 0 updated, 0 unchanged\n$/);
      const memories = await memoriesOf('kg');
      expect(memories).toHaveLength(3);
      const ada = memories.find((m) => m.metadata.title === 'Ada Lovelace');
      expect(ada.text).toBe(
        '- Wrote the first published algorithm\n- Prefers tabs\n\nRelations:\n- Ada Lovelace wrote_programs_for Analytical Engine\n- Ada Lovelace lived_in London',
      );
      expect(ada.metadata).toMatchObject({
        category: 'person',
        tags: ['person'],
        source: 'memory-jsonl',
        entity: 'Ada Lovelace',
      });
      const london = memories.find((m) => m.metadata.title === 'London');
      expect(london.text).toBe('Relations:\n- Ada Lovelace lived_in London');
    });

    it('a re-run changes nothing; a changed graph updates in place, never duplicates', async () => {
      const again = world.json(['import', 'memory-jsonl', join(FIXTURES, 'memory.jsonl'), '--project', 'kg'], { env });
      expect(again.map((r: Json) => r.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged']);

      const changed = join(work, 'memory.jsonl');
      writeFileSync(
        changed,
        `${readFileSync(join(FIXTURES, 'memory.jsonl'), 'utf8').replace('Prefers tabs', 'Prefers spaces')}{"type":"entity","name":"Babbage","entityType":"person","observations":["Engineer"]}\n`,
      );
      const dry = world.cairn(['import', 'memory-jsonl', changed, '--project', 'kg', '--dry-run'], { env });
      expect(dry.stdout).toMatch(/Dry run: 1 created, 1 updated, 2 unchanged\n$/);
      expect(await memoriesOf('kg')).toHaveLength(3);

      const result = world.cairn(['import', 'memory-jsonl', changed, '--project', 'kg'], { env });
      expect(result.stdout).toMatch(/Imported: 1 created, 1 updated, 2 unchanged\n$/);
      const memories = await memoriesOf('kg');
      expect(memories).toHaveLength(4);
      expect(memories.find((m) => m.metadata.title === 'Ada Lovelace').text).toContain('- Prefers spaces');

      // The same graph in another project is another set of memories.
      world.cairn(['import', 'memory-jsonl', changed], { env });
      expect(
        (await world.api(key, 'GET', '/memories?per_page=100')).body.memories.filter(
          (m: Json) => m.project_name === null,
        ),
      ).toHaveLength(4);
    });

    it('a bad line is refused before anything is sent (exit 2, naming the line)', async () => {
      const bad = join(work, 'bad.jsonl');
      writeFileSync(
        bad,
        '{"type":"entity","name":"Ok","entityType":"x","observations":[]}\n{"type":"entity","name":"Broken"\n',
      );
      const result = world.cairn(['import', 'memory-jsonl', bad, '--project', 'bad'], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/bad\.jsonl line 2: not valid JSON/);
      expect(await memoriesOf('bad')).toHaveLength(0);
    });
  });

  describe('import markdown', () => {
    it('imports each file as an artifact (slug from the file name, front matter honoured); re-runs are no-ops', async () => {
      const result = world.cairn(
        ['import', 'markdown', join(FIXTURES, 'notes'), '--as', 'artifacts', '--project', 'acme/docs'],
        { env },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Imported: 2 created, 0 updated, 0 unchanged\n$/);
      const design = (await world.api(key, 'GET', '/artifacts/acme%2Fdocs/api-design')).body;
      expect(design).toMatchObject({
        title: 'API design notes',
        labels: ['design', 'api'],
        content: '# API design\n\nREST, JSON, ULIDs.\n',
        content_type: 'text/markdown',
      });
      const checklist = (await world.api(key, 'GET', '/artifacts/acme%2Fdocs/release-checklist')).body;
      expect(checklist).toMatchObject({
        title: 'Release checklist',
        content: '# Release checklist\n\n1. Tag\n2. Publish\n',
      });

      const again = world.json(
        ['import', 'markdown', join(FIXTURES, 'notes'), '--as', 'artifacts', '--project', 'acme/docs'],
        { env },
      );
      expect(again.map((r: Json) => r.outcome)).toEqual(['unchanged', 'unchanged']);
      expect((await world.api(key, 'GET', '/artifacts/acme%2Fdocs/api-design')).body.version).toBe(1);
      expect(world.cairn(['import', 'markdown', join(FIXTURES, 'notes'), '--as', 'artifacts'], { env }).code).toBe(2);
    });

    it('imports each file as a prompt; a changed file updates it, creating one version', async () => {
      const dir = join(work, 'notes');
      cpSync(join(FIXTURES, 'notes'), dir, { recursive: true });
      const result = world.cairn(['import', 'markdown', dir, '--as', 'prompts'], { env });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Imported: 2 created, 0 updated, 0 unchanged\n$/);
      const design = (await world.api(key, 'GET', '/prompts/api-design')).body;
      expect(design).toMatchObject({
        title: 'API design notes',
        labels: ['design', 'api'],
        content: '# API design\n\nREST, JSON, ULIDs.',
        version: 1,
      });
      expect((await world.api(key, 'GET', '/prompts/release-checklist')).body.title).toBe('Release checklist');

      writeFileSync(
        join(dir, 'api-design.md'),
        readFileSync(join(dir, 'api-design.md'), 'utf8').replace('ULIDs', 'ETags'),
      );
      const again = world.cairn(['import', 'markdown', dir, '--as', 'prompts'], { env });
      expect(again.stdout).toMatch(/Imported: 0 created, 1 updated, 1 unchanged\n$/);
      expect((await world.api(key, 'GET', '/prompts/api-design')).body).toMatchObject({
        content: '# API design\n\nREST, JSON, ETags.',
        version: 2,
      });
    });
  });

  describe('export and import (needs GET /export and POST /import on the server)', () => {
    it('export → import into another account → export gives the same content; re-import changes nothing', async () => {
      const first = join(work, 'first.ndjson');
      const exported = world.cairn(['export', '-o', first], { env });
      expect(exported.stderr).toMatch(/^Exported \d+ prompts, \d+ memories, \d+ artifacts to /);
      expect(exported.code).toBe(0);
      expect(existsSync(`${first}.partial`)).toBe(false);
      const lines = readFileSync(first, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({ type: 'header', format: 'cairn-export', version: 1 });
      expect(lines.at(-1)).toMatchObject({ type: 'end', counts: { prompts: 2, memories: 8, artifacts: 2 } });

      // The same bundle on stdout.
      const toStdout = world.cairn(['export'], { env });
      expect(toStdout.stdout.trimEnd().split('\n')).toHaveLength(lines.length);

      const again = world.json(['import', first], { env });
      expect(again).toMatchObject({ dry_run: false, created: { prompts: 0, memories: 0, artifacts: 0 } });
      expect(again.unchanged).toEqual({ prompts: 2, memories: 8, artifacts: 2 });

      const otherKey = world.userWithKey('copy@example.com', 'cli');
      const otherEnv = { CAIRN_URL: world.base, CAIRN_API_KEY: otherKey };
      const dry = world.cairn(['import', first, '--dry-run'], { env: otherEnv });
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(
        /^KIND\s+CREATED\s+UPDATED\s+UNCHANGED\nprompts\s+2\s+0\s+0\nmemories\s+8\s+0\s+0\nartifacts\s+2\s+0\s+0\nDry run: nothing was changed\.\n$/,
      );
      expect((await world.api(otherKey, 'GET', '/prompts')).body.total).toBe(0);

      const imported = world.cairn(['import', first], { env: otherEnv });
      expect(imported.code).toBe(0);
      const second = join(work, 'second.ndjson');
      expect(world.cairn(['export', '-o', second], { env: otherEnv }).code).toBe(0);
      // Content must survive; ids and timestamps (at any depth) are the server's to assign.
      const IGNORED = new Set(['id', 'memory_id', 'created_at', 'updated_at', 'last_accessed_at', 'exported_at']);
      const strip = (value: unknown): unknown =>
        Array.isArray(value)
          ? value.map(strip)
          : value && typeof value === 'object'
            ? Object.fromEntries(
                Object.entries(value)
                  .filter(([k]) => !IGNORED.has(k))
                  .map(([k, v]) => [k, strip(v)]),
              )
            : value;
      const comparable = (file: string) =>
        readFileSync(file, 'utf8')
          .trimEnd()
          .split('\n')
          .map((line) => strip(JSON.parse(line)))
          .filter((record: Json) => record.type !== 'header')
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      expect(comparable(second)).toEqual(comparable(first));
    });

    it('imports from stdin and reports a bad bundle as invalid input', () => {
      const bad = join(work, 'bad.ndjson');
      writeFileSync(bad, '{"type":"header","format":"something-else","version":1}\n');
      const result = world.cairn(['import', bad], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^cairn: invalid input: /);
      expect(world.cairn(['import', join(work, 'missing.ndjson')], { env }).code).toBe(3);
      const piped = world.cairn(['import', '-', '--dry-run'], {
        env,
        input: readFileSync(join(work, 'first.ndjson'), 'utf8'),
      });
      expect(piped.code).toBe(0);
    });
  });
});
