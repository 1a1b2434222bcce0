import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { buildApp } from '../../src/http/app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';
import type { Json as JsonValue } from '../helpers/json.js';

/**
 * The OpenAPI document is the contract: it must be valid, lint clean, and every operation's real answers
 * (success and the documented errors) must be documented — status, content type and body schema.
 */

type Json = Record<string, JsonValue>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const REDOCLY = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** The import spool, watched to know when an import is holding its slot. */
const SPOOL = mkdtempSync(join(tmpdir(), 'cairn-contract-spool-'));
const LIMITS = { BODY_LIMIT_BYTES: '4096', ARTIFACT_MAX_BYTES: '2048', IMPORT_MAX_BYTES: '65536' };

/** Why a documented answer is not produced by this test. Everything else must be seen. */
const NOT_PRODUCED: Record<string, string> = {
  'updatePrompt 409': 'only when concurrent writers keep colliding past the retries',
  'restorePromptVersion 409': 'only when concurrent writers keep colliding past the retries',
  ...(DIALECTS.includes('postgres') ? {} : { '* 503': 'needs PostgreSQL (TEST_DATABASE_URL) to cut the storage off' }),
};

interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  spec: Json;
}

/** Checks answers against the document and remembers which (operation, status) pairs were seen. */
class Contract {
  readonly operations: Operation[] = [];
  readonly seen = new Map<string, Set<string>>();
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; the document itself is the root, so `#/components/…`
    // references resolve as they do for any client. Non-schema keywords (x-itemSchema, …) are ignored.
    this.ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
    this.ajv.addSchema({ ...document, $id: 'openapi.json' });
    for (const [template, item] of Object.entries(document.paths as Json)) {
      for (const method of METHODS) {
        const spec = item[method];
        if (!spec) continue;
        const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        this.operations.push({ id: spec.operationId, method: method.toUpperCase(), template, pattern, spec });
      }
    }
  }

  operationFor(method: string, url: string): Operation | undefined {
    const path = url.split('?')[0] as string;
    return this.operations.find((op) => op.method === method.toUpperCase() && op.pattern.test(path));
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  private validatorOf(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** Fails unless the answer is documented for its operation, with its content type and schema. */
  check(method: string, url: string, res: LightMyRequestResponse): void {
    const op = this.operationFor(method, url);
    const where = `${method} ${url} → ${res.statusCode}`;
    if (!op) throw new Error(`${where}: no operation in the document`);
    const status = String(res.statusCode);
    const response = op.spec.responses?.[status];
    if (!response) throw new Error(`${where}: status not documented for ${op.id}: ${res.body.slice(0, 300)}`);
    const seen = this.seen.get(op.id) ?? new Set<string>();
    seen.add(status);
    this.seen.set(op.id, seen);

    const content = response.content as Json | undefined;
    if (!content) {
      if (res.body !== '') throw new Error(`${where}: a body where the document has none`);
      return;
    }
    const type = (String(res.headers['content-type'] ?? '').split(';')[0] ?? '').trim().toLowerCase();
    const media = Object.keys(content).find(
      (range) => range === type || range === '*/*' || (range.endsWith('/*') && type.startsWith(range.slice(0, -1))),
    );
    if (!media) throw new Error(`${where}: content type "${type}" not among ${Object.keys(content).join(', ')}`);
    const pointerPart = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    const pointer = `/paths/${pointerPart(op.template)}/${op.method.toLowerCase()}/responses/${status}/content/${pointerPart(media)}/schema`;
    const schema = content[media].schema as Json;

    let instance: unknown = res.body;
    if (media === 'application/json') instance = JSON.parse(res.body);
    const validate = this.validator(pointer);
    if (!validate(instance)) {
      throw new Error(`${where}: body does not match the schema: ${this.ajv.errorsText(validate.errors)}\n${res.body}`);
    }
    // JSON Lines: each line against the line schema.
    if (schema['x-itemSchema']) {
      const line = this.validatorOf(schema['x-itemSchema']);
      const lines = res.body.split('\n');
      expect(lines.pop(), `${where}: the last line ends with a newline`).toBe('');
      for (const [i, text] of lines.entries()) {
        if (!line(JSON.parse(text))) {
          throw new Error(`${where}: line ${i + 1} does not match: ${this.ajv.errorsText(line.errors)}`);
        }
      }
    }
  }

  /** A request body the server accepted must match the documented request body. */
  checkRequest(method: string, url: string, options: InjectOptions): void {
    const op = this.operationFor(method, url);
    const body = op?.spec.requestBody;
    if (!op || !body || options.payload === undefined) return;
    const type = String((options.headers as Json | undefined)?.['content-type'] ?? 'application/json').split(';')[0];
    const media = body.content[type as string];
    if (!media) return; // a deliberately wrong type (the 415 checks)
    if (type !== 'application/json') return;
    const validate = this.validatorOf(media.schema);
    const payload = typeof options.payload === 'string' ? JSON.parse(options.payload) : options.payload;
    if (!validate(payload)) {
      throw new Error(`${method} ${url}: request body does not match: ${this.ajv.errorsText(validate.errors)}`);
    }
  }
}

/** A TCP relay to PostgreSQL that can be cut, to make the storage unreachable under a running app. */
async function relay(target: URL): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const { connect } = await import('node:net');
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Json;
  let contract: Contract;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { ...LIMITS, IMPORT_SPOOL_DIR: SPOOL });
    const res = await t.request(undefined, { method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    document = res.json();
    contract = new Contract(document);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(SPOOL, { recursive: true, force: true });
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('passes the recommended lint rules with no error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const run = spawnSync(REDOCLY, ['lint', file, '--extends=recommended', '--format=json'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string; severity: string }[];
      };
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
      expect(problems.filter((p) => p.startsWith('error'))).toEqual([]);
      expect(report.totals.errors).toBe(0);
      expect(problems).toEqual([]); // no warnings either, so that new ones are noticed
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives every operation an operationId, a summary and a declared tag', () => {
    const declared = new Set((document.tags as Json[]).map((tag) => tag.name));
    const ids = contract.operations.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of contract.operations) {
      expect(op.id, `${op.method} ${op.template}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.spec.summary, op.id).toBeTruthy();
      expect(op.spec.tags?.length, op.id).toBeGreaterThan(0);
      for (const tag of op.spec.tags) expect(declared.has(tag), `${op.id}: ${tag}`).toBe(true);
    }
    expect(document.components.schemas.Error).toBeDefined();
  });

  it('describes what every operation really answers', async () => {
    const send = async (key: string | undefined, options: InjectOptions, app?: TestApp | FastifyInstance) => {
      const method = options.method as string;
      const url = options.url as string;
      const res =
        app && 'inject' in app
          ? await app.inject({
              ...options,
              headers: { ...(options.headers as Json), ...(key ? { authorization: `Bearer ${key}` } : {}) },
            })
          : await (app ?? t).request(key, options);
      contract.check(method, url, res);
      // What the server accepted, the document must accept too.
      if (res.statusCode < 300) contract.checkRequest(method, url, options);
      return res;
    };
    const json = (method: string, url: string, payload: unknown, headers: Json = {}): InjectOptions => ({
      method: method as InjectOptions['method'],
      url,
      payload: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', ...headers },
    });
    const expectStatus = async (
      status: number,
      key: string | undefined,
      options: InjectOptions,
      app?: TestApp | FastifyInstance,
    ) => {
      const res = await send(key, options, app);
      expect(res.statusCode, `${options.method} ${options.url}: ${res.body.slice(0, 300)}`).toBe(status);
      return res;
    };

    const { key } = await t.user();
    const P = '/api/v1/prompts';
    const A = '/api/v1/artifacts';
    const M = '/api/v1/memories';
    const art = `${A}/acme%2Fbackend/notes`;

    // Success, with the data the other requests use.
    await expectStatus(201, key, json('POST', P, { title: 'Style guide', content: 'Be brief about {{topic}}.' }));
    await expectStatus(
      201,
      key,
      json('POST', P, { title: 'Review', content: 'Review it. @style-guide', slug: 'review', status: 'published' }),
    );
    await expectStatus(200, key, { method: 'GET', url: `${P}?search=brief` });
    await expectStatus(200, key, { method: 'GET', url: `${P}/style-guide` });
    await expectStatus(200, key, json('PUT', `${P}/style-guide`, { content: 'Be very brief about {{topic}}.' }));
    await expectStatus(200, key, { method: 'GET', url: `${P}/style-guide/versions` });
    await expectStatus(200, key, { method: 'GET', url: `${P}/style-guide/versions/1` });
    await expectStatus(200, key, json('POST', `${P}/style-guide/restore`, { version: 1 }, { 'if-match': '"2"' }));
    await expectStatus(200, key, json('POST', `${P}/review/render`, { variables: { topic: 'tests' } }));
    await expectStatus(200, key, { method: 'GET', url: `${P}/style-guide/referenced-by` });
    await expectStatus(200, key, json('PUT', `${P}/style-guide/environments/production`, { version: 1 }));
    await expectStatus(200, key, json('PUT', `${P}/style-guide/environments/staging`, { version: 1 }));
    await expectStatus(200, key, { method: 'GET', url: `${P}/style-guide/environments` });
    await expectStatus(200, key, { method: 'GET', url: `${P}/style-guide?environment=production` });
    await expectStatus(200, key, { method: 'DELETE', url: `${P}/style-guide/environments/staging` });

    // Path parameters over their bounds (an id or slug over 200 characters, a memory id over 100) are 400s.
    const long = 'a'.repeat(250);
    for (const [method, url] of [
      ['GET', `${P}/${long}`],
      ['DELETE', `${P}/${long}`],
      ['GET', `${M}/${long}`],
      ['DELETE', `${M}/${long}`],
      ['GET', `${A}/${long}/notes`],
      ['DELETE', `${A}/acme/${long}`],
      ['GET', `${A}/acme/${long}/raw`],
    ] as const) {
      await expectStatus(400, key, { method, url });
    }

    const memory = await expectStatus(201, key, json('POST', M, { text: 'Use pnpm', metadata: { tags: ['js'] } }));
    // The same text again is answered with the stored memory (200, deduped).
    await expectStatus(200, key, json('POST', M, { text: 'use pnpm.' }));
    const memoryUrl = `${M}/${memory.json().memory_id}`;
    await expectStatus(200, key, { method: 'GET', url: M });
    await expectStatus(200, key, { method: 'GET', url: `${M}?search=pnpm&explain=true` });
    await expectStatus(200, key, { method: 'GET', url: memoryUrl });
    await expectStatus(200, key, json('PUT', memoryUrl, { metadata: { priority: 'high' } }));
    await expectStatus(201, key, json('POST', `${M}/batch`, { memories: [{ text: 'One' }, { text: 'Two' }] }));
    await expectStatus(200, key, { method: 'GET', url: `${memoryUrl}/versions` });
    await expectStatus(200, key, { method: 'GET', url: `${memoryUrl}/versions?per_page=1&cursor=1` });
    await expectStatus(200, key, { method: 'GET', url: `${memoryUrl}/versions/1` });
    await expectStatus(200, key, json('POST', `${memoryUrl}/restore`, { version: 1 }));

    await expectStatus(
      201,
      key,
      json('POST', A, { project: 'acme/backend', slug: 'notes', title: 'Notes', content: '# Notes' }),
    );
    await expectStatus(200, key, json('PUT', art, { content: '# Notes\nMore.' }, { 'if-match': '"1"' }));
    await expectStatus(
      201,
      key,
      json('POST', A, { project: 'acme', title: 'Page', content: '<svg/>', content_type: 'image/svg+xml' }),
    );
    await expectStatus(200, key, { method: 'GET', url: `${A}?project=acme` });
    await expectStatus(200, key, { method: 'GET', url: art });
    await expectStatus(200, key, { method: 'GET', url: `${art}/raw` });
    await expectStatus(200, key, { method: 'GET', url: `${A}/acme/page/raw` });
    await expectStatus(200, key, { method: 'GET', url: `${art}/versions` });
    await expectStatus(200, key, { method: 'GET', url: `${art}/versions/1` });
    await expectStatus(200, key, { method: 'GET', url: '/api/v1/me' });
    await expectStatus(200, key, { method: 'GET', url: '/api/v1/context?project_name=acme&task=notes&max_chars=5000' });
    await expectStatus(200, key, { method: 'GET', url: `${M}?search=pnpm&max_chars=2000&per_page=1&cursor=0` });
    await expectStatus(200, key, { method: 'GET', url: '/api/v1/audit?object_type=prompt&per_page=2' });

    const bundle = await expectStatus(200, key, { method: 'GET', url: '/api/v1/export' });
    const ndjson = { 'content-type': 'application/x-ndjson' };
    await expectStatus(200, key, {
      method: 'POST',
      url: '/api/v1/import?dry_run=true',
      payload: bundle.body,
      headers: ndjson,
    });
    await expectStatus(200, key, { method: 'POST', url: '/api/v1/import', payload: bundle.body, headers: ndjson });

    // Invalid input (400).
    await expectStatus(400, key, { method: 'GET', url: `${P}?per_page=0` });
    await expectStatus(400, key, json('POST', P, { title: '' }));
    await expectStatus(400, key, json('PUT', `${P}/style-guide`, { slug: 'renamed' }));
    await expectStatus(400, key, { method: 'GET', url: `${P}/style-guide/versions?page=0` });
    await expectStatus(400, key, { method: 'GET', url: `${P}/style-guide/versions/zero` });
    await expectStatus(400, key, json('POST', `${P}/style-guide/restore`, { version: 'one' }));
    await expectStatus(400, key, json('POST', `${P}/review/render`, { variables: { unknown: 'x' } }));
    await expectStatus(400, key, { method: 'GET', url: `${P}/style-guide/referenced-by?per_page=1000` });
    await expectStatus(400, key, json('PUT', `${P}/style-guide/environments/production`, { version: 99 }));
    await expectStatus(400, key, { method: 'GET', url: `${P}/${'x'.repeat(300)}/environments` });
    await expectStatus(400, key, { method: 'DELETE', url: `${P}/style-guide/environments/Bad_Name` });
    await expectStatus(400, key, { method: 'GET', url: `${M}?priority=urgent` });
    await expectStatus(400, key, { method: 'GET', url: '/api/v1/context?max_chars=1' });
    await expectStatus(400, key, { method: 'GET', url: '/api/v1/audit?since=yesterday' });
    await expectStatus(400, key, json('POST', M, { text: '' }));
    await expectStatus(400, key, json('POST', `${M}/batch`, { memories: [{ text: 'ok' }, { text: '' }] }));
    await expectStatus(400, key, json('PUT', memoryUrl, { text: '' }));
    await expectStatus(400, key, { method: 'GET', url: `${memoryUrl}/versions?per_page=0` });
    await expectStatus(400, key, { method: 'GET', url: `${memoryUrl}/versions/0` });
    await expectStatus(400, key, json('POST', `${memoryUrl}/restore`, { version: 'one' }));
    await expectStatus(400, key, { method: 'GET', url: `${A}?per_page=abc` });
    await expectStatus(400, key, json('POST', A, { project: 'acme' }));
    await expectStatus(400, key, json('PUT', art, { slug: 'other' }));
    await expectStatus(400, key, { method: 'GET', url: `${art}/versions?page=-1` });
    await expectStatus(400, key, { method: 'GET', url: `${art}/versions/0` });
    await expectStatus(400, key, {
      method: 'POST',
      url: '/api/v1/import',
      payload: '{"type":"header"}\nnot json\n',
      headers: ndjson,
    });

    // Not found (404).
    for (const url of [
      `${P}/missing`,
      `${P}/missing/versions`,
      `${P}/style-guide/versions/99`,
      `${P}/missing/referenced-by`,
      `${M}/mem_01JD0000000000000000000000`,
      `${M}/mem_01JD0000000000000000000000/versions`,
      `${memoryUrl}/versions/99`,
      `${A}/acme/missing`,
      `${A}/acme/missing/raw`,
      `${A}/acme/missing/versions`,
      `${art}/versions/99`,
    ]) {
      await expectStatus(404, key, { method: 'GET', url });
    }
    await expectStatus(404, key, json('PUT', `${P}/missing`, { title: 'x' }));
    await expectStatus(404, key, json('POST', `${P}/style-guide/restore`, { version: 99 }));
    await expectStatus(404, key, json('POST', `${P}/missing/render`, {}));
    await expectStatus(404, key, { method: 'GET', url: `${P}/missing/environments` });
    await expectStatus(404, key, json('PUT', `${P}/missing/environments/production`, { version: 1 }));
    await expectStatus(404, key, { method: 'DELETE', url: `${P}/style-guide/environments/nowhere` });
    await expectStatus(404, key, json('PUT', `${M}/mem_01JD0000000000000000000000`, { text: 'x' }));
    await expectStatus(404, key, json('POST', `${memoryUrl}/restore`, { version: 99 }));
    await expectStatus(404, key, json('PUT', `${A}/acme/missing`, { title: 'x' }));
    for (const url of [`${P}/missing`, `${M}/mem_01JD0000000000000000000000`, `${A}/acme/missing`]) {
      await expectStatus(404, key, { method: 'DELETE', url });
    }

    // Conflicts and preconditions (409, 412).
    await expectStatus(409, key, json('POST', P, { title: 'Again', content: 'x', slug: 'review' }));
    await expectStatus(409, key, json('POST', A, { project: 'acme/backend', slug: 'notes', title: 'N', content: 'x' }));
    await expectStatus(412, key, json('PUT', `${P}/style-guide`, { title: 'New' }, { 'if-match': '"99"' }));
    await expectStatus(412, key, json('POST', `${P}/style-guide/restore`, { version: 1 }, { 'if-match': '"99"' }));
    await expectStatus(412, key, json('PUT', art, { title: 'New' }, { 'if-match': '"99"' }));

    // Too large (413) and not JSON (415), on every operation with a body.
    const big = 'x'.repeat(5000);
    const bodies: [string, string, unknown][] = [
      ['POST', P, { title: 'Big', content: big }],
      ['PUT', `${P}/style-guide`, { content: big }],
      ['POST', `${P}/style-guide/restore`, { version: 1, commit_message: big }],
      ['POST', `${P}/review/render`, { variables: { topic: big } }],
      ['PUT', `${P}/style-guide/environments/production`, { version: 1, padding: big }],
      ['POST', M, { text: big }],
      ['PUT', memoryUrl, { text: big }],
      ['POST', `${memoryUrl}/restore`, { version: 1, padding: big }],
      ['POST', A, { project: 'acme', title: 'Big', content: big }],
      ['PUT', art, { content: big }],
    ];
    for (const [method, url, payload] of bodies) {
      await expectStatus(413, key, json(method, url, payload));
      await expectStatus(415, key, {
        method: method as 'POST',
        url,
        payload: 'text',
        headers: { 'content-type': 'text/plain' },
      });
    }
    for (const url of [`${P}/style-guide`, `${P}/style-guide/environments/production`, memoryUrl, art]) {
      await expectStatus(413, key, json('DELETE', url, { padding: big }));
      await expectStatus(415, key, {
        method: 'DELETE',
        url,
        payload: 'text',
        headers: { 'content-type': 'text/plain' },
      });
    }
    await expectStatus(413, key, {
      method: 'POST',
      url: '/api/v1/import',
      payload: 'x'.repeat(70_000),
      headers: ndjson,
    });
    // A batch may be 8 times the single-body limit.
    await expectStatus(
      413,
      key,
      json('POST', `${M}/batch`, { memories: Array.from({ length: 8 }, () => ({ text: big })) }),
    );
    await expectStatus(415, key, {
      method: 'POST',
      url: `${M}/batch`,
      payload: 'text',
      headers: { 'content-type': 'text/plain' },
    });
    await expectStatus(415, key, json('POST', '/api/v1/import', {}));

    // Webhooks (docs/webhooks.md): every answer of every operation.
    const W = '/api/v1/webhooks';
    const hook = { url: 'https://93.184.216.34/hook', events: ['memory.created'] };
    const created = await expectStatus(201, key, json('POST', W, hook));
    const hookUrl = `${W}/${created.json().id}`;
    await expectStatus(200, key, { method: 'GET', url: W });
    await expectStatus(200, key, { method: 'GET', url: hookUrl });
    await expectStatus(200, key, json('PUT', hookUrl, { description: 'Contract' }));
    await expectStatus(200, key, { method: 'POST', url: `${hookUrl}/rotate-secret` });
    await expectStatus(202, key, { method: 'POST', url: `${hookUrl}/test` });
    await expectStatus(200, key, { method: 'GET', url: `${hookUrl}/deliveries` });
    await expectStatus(200, key, { method: 'GET', url: `${hookUrl}/attempts` });
    await expectStatus(400, key, json('POST', W, { url: 'ftp://x', events: [] }));
    await expectStatus(400, key, json('PUT', hookUrl, { url: 'http://10.0.0.1/' }));
    await expectStatus(400, key, { method: 'GET', url: `${hookUrl}/deliveries?page=0` });
    await expectStatus(400, key, { method: 'GET', url: `${hookUrl}/attempts?per_page=1000` });
    for (const method of ['GET', 'DELETE'] as const) {
      await expectStatus(400, key, { method, url: `${W}/${long}` });
    }
    for (const suffix of ['rotate-secret', 'test']) {
      await expectStatus(400, key, { method: 'POST', url: `${W}/${long}/${suffix}` });
    }
    const missingHook = `${W}/whk_01JD0000000000000000000000`;
    for (const [method, url] of [
      ['GET', missingHook],
      ['DELETE', missingHook],
      ['POST', `${missingHook}/rotate-secret`],
      ['POST', `${missingHook}/test`],
      ['GET', `${missingHook}/deliveries`],
      ['GET', `${missingHook}/attempts`],
    ] as const) {
      await expectStatus(404, key, { method, url });
    }
    await expectStatus(404, key, json('PUT', missingHook, { description: 'x' }));
    await expectStatus(200, key, json('PUT', hookUrl, { enabled: false }));
    await expectStatus(409, key, { method: 'POST', url: `${hookUrl}/test` });
    for (let i = 1; i < 10; i++) await expectStatus(201, key, json('POST', W, hook));
    await expectStatus(409, key, json('POST', W, hook));
    for (const [method, url] of [
      ['POST', W],
      ['PUT', hookUrl],
      ['DELETE', hookUrl],
      ['POST', `${hookUrl}/rotate-secret`],
      ['POST', `${hookUrl}/test`],
    ] as const) {
      await expectStatus(413, key, json(method, url, { padding: big }));
      await expectStatus(415, key, { method, url, payload: 'text', headers: { 'content-type': 'text/plain' } });
    }
    await expectStatus(200, key, { method: 'DELETE', url: hookUrl });
    // A second import of the same user while one is still receiving its body (409); then the first finishes.
    // The first goes over a real socket, so that its body can stay open while the second is sent.
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const [headerLine, ...rest] = bundle.body.split('\n');
    const holder = httpRequest(`${base}/api/v1/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    });
    const first = new Promise<number>((resolve, reject) => {
      holder.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      holder.on('error', reject);
    });
    holder.write(`${headerLine}\n`);
    // The first request holds its slot once its spool file exists: wait for that condition (not a fixed time).
    const spooling = () => readdirSync(SPOOL, { recursive: true }).some((name) => String(name).endsWith('.jsonl'));
    for (let i = 0; !spooling() && i < 1000; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(spooling()).toBe(true);
    const second = await send(key, { method: 'POST', url: '/api/v1/import', payload: bundle.body, headers: ndjson });
    expect(second.statusCode).toBe(409);
    holder.end(rest.join('\n'));
    expect(await first).toBe(200);

    for (const url of [`${P}/review`, memoryUrl, art]) await expectStatus(200, key, { method: 'DELETE', url });

    // Missing key (401) and over the hourly limit (429), on every operation.
    const limited = await t.user({ rateLimit: 1 });
    await expectStatus(200, limited.key, { method: 'GET', url: '/api/v1/me' });
    const everyOperation = (op: Operation): InjectOptions => {
      const url = op.template
        .replace('{id_or_slug}', 'style-guide')
        .replace('{memory_id}', memoryUrl.split('/').pop() as string)
        .replace('{project}', 'acme%2Fbackend')
        .replace('{slug}', 'notes')
        .replace('{version}', '1')
        .replace('{name}', 'production')
        .replace('{n}', '1');
      return { method: op.method as 'GET', url };
    };
    for (const op of contract.operations) {
      const res401 = await expectStatus(401, undefined, everyOperation(op));
      expect(res401.headers['www-authenticate']).toMatch(/^Bearer realm="cairn"/);
      const res429 = await expectStatus(429, limited.key, everyOperation(op));
      expect(res429.headers['retry-after']).toBeDefined();
    }

    // An unexpected failure (500): the database closed under a running app.
    const failing = await createTestApp('sqlite');
    const failingUser = await failing.user();
    await failing.container.database.close();
    try {
      for (const op of contract.operations) {
        const res = await expectStatus(500, failingUser.key, everyOperation(op), failing);
        expect(res.json().request_id).toBe(res.headers['x-request-id']);
      }
    } finally {
      await failing.app.close();
      await failing.database.drop();
    }

    // Storage unreachable (503): PostgreSQL behind a relay that is cut.
    if (DIALECTS.includes('postgres')) {
      const database = await createTestDatabase('postgres');
      const target = new URL(database.url);
      const cable = await relay(target);
      const url = new URL(database.url);
      url.hostname = '127.0.0.1';
      url.port = String(cable.port);
      const container = await createContainer(
        loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'silent', USAGE_FLUSH_INTERVAL_MS: '3600000' }),
      );
      const app = await buildApp(container, { logger: false });
      await app.ready();
      const email = `cut-${Date.now()}@example.com`;
      const user = await container.services.users.create(OPERATOR, { email, tier: 'free' });
      // Both REST integrations, so that every operation (the context block takes ai_tools only) is admitted.
      const created = await container.services.keys.create(
        { userId: user.id, integrations: new Set(['cli', 'ai_tools']), via: 'operator' },
        { name: 'cut', integrations: ['cli', 'ai_tools'] },
      );
      await cable.cut();
      try {
        for (const op of contract.operations) {
          const res = await expectStatus(503, created.key, everyOperation(op), app);
          expect(res.headers['retry-after']).toBeDefined();
        }
      } finally {
        await app.close();
        await container.close().catch(() => undefined);
        await database.drop();
      }
    }

    // Every operation had traffic, and every documented answer was seen (or is listed with a reason).
    const missing: string[] = [];
    for (const op of contract.operations) {
      for (const status of Object.keys(op.spec.responses)) {
        if (contract.seen.get(op.id)?.has(status)) continue;
        if (NOT_PRODUCED[`${op.id} ${status}`] || NOT_PRODUCED[`* ${status}`]) continue;
        missing.push(`${op.id} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  // Fastify's router answers a malformed percent-encoding before any route runs; app.ts's `frameworkErrors`
  // puts that answer in the error contract too.
  it('answers a malformed percent-encoding in a path with a 400 in the error contract', async () => {
    const { key } = await t.user();
    for (const url of ['/api/v1/prompts/%ZZ', '/api/v1/memories/%E0%A4%A', '/api/v1/artifacts/acme/%ZZ']) {
      const res = await t.request(key, { method: 'GET', url });
      contract.check('GET', url, res);
    }
  });

  it('answers 405 with Allow listing exactly the documented methods of a path', async () => {
    for (const [template, item] of Object.entries(document.paths as Json)) {
      const documented = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
      const other = (['GET', 'PUT', 'POST', 'DELETE', 'PATCH'] as const).find((m) => !documented.includes(m));
      if (!other) continue;
      const url = template.replace(/\{[^}]+\}/g, 'x');
      const res = await t.request(undefined, { method: other, url });
      expect(res.statusCode, `${other} ${url}`).toBe(405);
      expect(res.json().error).toBe('method_not_allowed');
      const allow = String(res.headers.allow)
        .split(', ')
        .filter((m) => m !== 'HEAD');
      expect(new Set(allow), template).toEqual(new Set(documented));
    }
  });
});
