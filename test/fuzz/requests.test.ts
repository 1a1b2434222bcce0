import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';
import { routesOf } from './routes.js';
import {
  allSpecs,
  type Credentials,
  type DashboardFixtures,
  type Fixtures,
  type FuzzRequest,
  type Spec,
} from './specs.js';

/**
 * Fuzzing at scale (issue 12): a seeded, time-boxed run of generated requests over every REST route, the
 * dashboard API and every MCP tool/method — valid, boundary and hostile values — asserting for every answer:
 * no 5xx; every 4xx is JSON `{error, message}` (+ a `details` object for validation_error); fields broken on
 * purpose are all named in `details` (REST) or in the tool error (MCP); MCP never answers -32603 and tool
 * errors carry `isError` with a message. Routes are read from the router and tools from `tools/list`: one
 * without a generator fails the run.
 *
 * Replay: FUZZ_SEED=<seed printed below>; size: FUZZ_REQUESTS (default 10,000 on SQLite, 2,000 on
 * PostgreSQL) within FUZZ_SECONDS (default 150; a run cut short by the time box fails: the service was
 * too slow to answer the generated requests).
 */

const ORIGIN = 'http://localhost:80';
const ADMIN_EMAIL = 'fuzz-admin@example.com';
const PASSWORD = 'correct horse battery staple';
const HUGE_LIMIT = '1000000000';

interface Failure {
  spec: string;
  kind: string;
  request: string;
  status: number;
  body: string;
}

const excerpt = (value: string | undefined, max = 240) =>
  value === undefined ? '' : value.length > max ? `${value.slice(0, max)}… (${value.length} chars)` : value;

function describeRequest(req: FuzzRequest): string {
  const headers = Object.entries(req.headers)
    .filter(([name]) => !['authorization', 'accept'].includes(name))
    .map(([name, value]) => `${name}: ${excerpt(value, 60)}`)
    .join('; ');
  return `${req.method} ${excerpt(req.url, 200)}${headers ? ` [${headers}]` : ''}${req.payload !== undefined ? ` body=${excerpt(req.payload)}` : ''}`;
}

/** A JSON-RPC answer's messages (JSON or SSE), or undefined when the body is neither. */
function mcpMessages(res: LightMyRequestResponse): Array<Record<string, Json>> | undefined {
  const type = String(res.headers['content-type'] ?? '');
  try {
    if (type.startsWith('text/event-stream')) {
      return res.body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)));
    }
    if (res.body === '') return [];
    const parsed = JSON.parse(res.body);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return undefined;
  }
}

/** `error` is a machine-readable code (api-decisions §2), e.g. validation_error — not "Bad Request". */
const ERROR_CODE = /^[a-z][a-z_]*$/;

const namesPath = (keys: string[], path: string) => keys.some((k) => k === path || k.startsWith(`${path}.`));

/** The assertions every answer must satisfy; returns what is wrong (empty when fine). */
function problemsOf(req: FuzzRequest, res: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  if (res.statusCode >= 500) problems.push(`5xx (${res.statusCode})`);
  if (req.url.startsWith('/mcp/')) return [...problems, ...mcpProblems(req, res)];
  let body: Json;
  if (res.statusCode >= 400) {
    try {
      body = res.json();
    } catch {
      return [...problems, `${res.statusCode} without a JSON body`];
    }
    if (typeof body?.error !== 'string' || typeof body?.message !== 'string' || !ERROR_CODE.test(body.error)) {
      problems.push(`${res.statusCode} without the {error, message} shape (error: a machine-readable code)`);
    } else if (
      body.error === 'validation_error' &&
      (typeof body.details !== 'object' || body.details === null || Array.isArray(body.details))
    ) {
      problems.push('validation_error without a details object');
    }
  }
  if (req.broken) {
    if (res.statusCode !== 400 || body?.error !== 'validation_error') {
      problems.push(`broken ${req.broken.join(', ')} → expected 400 validation_error, got ${res.statusCode}`);
    } else if (!refusedAsPoisoned(req, body)) {
      const keys = Object.keys(body.details ?? {});
      const missing = req.broken.filter((path) => !namesPath(keys, path));
      if (missing.length > 0) problems.push(`details do not name broken field(s) ${missing.join(', ')}`);
    }
  }
  return problems;
}

/**
 * A body with a `__proto__` or `constructor.prototype` key is refused whole before any field is looked at
 * (prototype poisoning, `details.body`): a broken field's value may be such an object, and then no field can
 * be named.
 */
function refusedAsPoisoned(req: FuzzRequest, body: Json): boolean {
  const details = body?.details ?? {};
  return (
    Object.keys(details).length === 1 &&
    'body' in details &&
    /"__proto__"\s*:|"constructor"\s*:\s*\{\s*"prototype"\s*:/.test(req.payload ?? '')
  );
}

function mcpProblems(req: FuzzRequest, res: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  const messages = mcpMessages(res);
  if (messages === undefined) {
    if (res.statusCode >= 400 || res.body !== '') problems.push(`${res.statusCode} body is neither JSON nor SSE`);
    return problems;
  }
  for (const m of messages) {
    if (res.statusCode >= 400 && !('jsonrpc' in m) && (typeof m.error !== 'string' || typeof m.message !== 'string')) {
      problems.push(`${res.statusCode} without the {error, message} shape or a JSON-RPC error`);
    }
    if (m.error && typeof m.error === 'object') {
      if (m.error.code === -32603)
        problems.push(`JSON-RPC internal error -32603: ${excerpt(String(m.error.message).replace(/\s+/g, ' '), 120)}`);
      if (typeof m.error.message !== 'string') problems.push('JSON-RPC error without a message');
    }
    if (m.result?.isError) {
      const text = m.result.content?.[0]?.text;
      if (typeof text !== 'string' || text.trim() === '') problems.push('tool error without a message');
    }
  }
  const expectation = req.mcp;
  if (expectation && messages.length === 1) {
    const m = messages[0] as Record<string, Json>;
    if (expectation.expectError !== undefined && m.error?.code !== expectation.expectError) {
      problems.push(
        `expected JSON-RPC error ${expectation.expectError}, got ${m.error ? `error ${m.error.code}` : 'a result'}`,
      );
    }
    if (expectation.brokenArgs) {
      if (m.result?.isError) {
        const lines = String(m.result.content?.[0]?.text ?? '').split('\n');
        const missing = expectation.brokenArgs.filter(
          (path) => !lines.some((line) => line.startsWith(`${path}:`) || line.startsWith(`${path}.`)),
        );
        if (missing.length > 0) problems.push(`tool error does not name broken argument(s) ${missing.join(', ')}`);
      } else if (m.error?.code === -32602) {
        const missing = expectation.brokenArgs.filter((path) => !String(m.error.message).includes(path));
        if (missing.length > 0) problems.push(`-32602 does not name broken argument(s) ${missing.join(', ')}`);
      } else if (m.result) {
        problems.push(`broken argument(s) ${expectation.brokenArgs.join(', ')} accepted (no isError)`);
      }
    }
  }
  return problems;
}

describe.each(DIALECTS)('fuzzing every route and tool (%s)', (dialect) => {
  let t: TestApp;
  let creds: Credentials;
  let rest: Fixtures;
  let dashboard: Fixtures;
  let dash: DashboardFixtures;
  let bundle: string[];
  let toolNames: string[];

  beforeAll(async () => {
    // Generous limits: a 429 must never hide what a request would have done.
    t = await createTestApp(dialect, { RATE_LIMIT_FREE: HUGE_LIMIT, AUTH_FAILURE_LIMIT: HUGE_LIMIT });
    // The dashboard user signs up first (so it is the admin and may reach the admin routes).
    const signup = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/signup',
      headers: { origin: ORIGIN },
      payload: { email: ADMIN_EMAIL, password: PASSWORD },
    });
    expect(signup.statusCode).toBe(201);
    const cookie = String(signup.headers['set-cookie']).split(';')[0] as string;
    const adminId = signup.json().user.id as string;
    await t.container.services.users.updateById(OPERATOR, adminId, { rate_limit: Number(HUGE_LIMIT) });
    const owner = await t.user({ integrations: ['ai_tools', 'cli'], rateLimit: Number(HUGE_LIMIT) });
    const mcpKey = (await t.key(owner.email, ['mcp_server'])).key;
    const marketplaceKey = (await t.key(owner.email, ['marketplace'])).key;
    creds = { key: owner.key, mcpKey, marketplaceKey, cookie, origin: ORIGIN };
    const victim = await t.user();

    const restCall = (method: string, url: string, payload?: object) =>
      t.request(owner.key, { method: method as 'GET', url: `/api/v1${url}`, ...(payload && { payload }) });
    const dashCall = (method: string, url: string, payload?: object) =>
      t.app.inject({
        method: method as 'GET',
        url: `/dashboard/api${url}`,
        headers: { cookie, origin: ORIGIN },
        ...(payload && { payload }),
      });
    rest = await seedContent(restCall);
    dashboard = await seedContent(dashCall);
    const keyIds: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await dashCall('POST', '/keys', { name: `disposable ${i}`, integrations: ['cli'] });
      keyIds.push(created.json().id);
    }
    dash = { disposableKeyIds: keyIds, otherUserIds: [victim.userId] };
    const exported = await restCall('GET', '/export');
    expect(exported.statusCode).toBe(200);
    bundle = exported.body.split('\n').filter(Boolean);
    const tools = await t.app.inject({
      method: 'POST',
      url: '/mcp/v1/common',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${mcpKey}`,
        'mcp-protocol-version': '2025-11-25',
      },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    toolNames = (tools.json().result.tools as Array<{ name: string }>).map((tool) => tool.name);
  }, 180_000);
  afterAll(async () => t?.close());

  it('answers ≥ 10,000 generated requests without a 5xx, with the error shape and complete details', {
    timeout: 300_000,
  }, async () => {
    const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
    const target = Number(process.env.FUZZ_REQUESTS ?? (dialect === 'sqlite' ? 10_000 : 2_000));
    const seconds = Number(process.env.FUZZ_SECONDS ?? 150);
    console.info(
      `[fuzz] ${dialect}: seed ${seed} (replay with FUZZ_SEED=${seed}), up to ${target} requests / ${seconds} s`,
    );

    const { specs, missingTools } = allSpecs({
      creds,
      rest,
      dashboard,
      dash,
      adminEmail: ADMIN_EMAIL,
      bundle,
      toolNames,
    });
    const byKey = new Map<string, Spec>(specs.map((spec) => [spec.key, spec]));
    const arbitrary = fc.oneof(
      ...specs.map((spec) => ({ weight: Math.max(1, Math.round((spec.weight ?? 1) * 10)), arbitrary: spec.arbitrary })),
    );

    const failures: Failure[] = [];
    const counts = new Map<string, number>();
    const statuses = new Map<number, number>();
    const slowest: Array<{ ms: number; request: string }> = [];
    const timeBySpec = new Map<string, number>();
    let sent = 0;
    const started = performance.now();
    const check = async (req: FuzzRequest) => {
      sent++;
      counts.set(req.spec, (counts.get(req.spec) ?? 0) + 1);
      const begin = performance.now();
      let res: LightMyRequestResponse;
      try {
        res = await t.app.inject({
          method: req.method,
          url: req.url,
          headers: req.headers,
          ...(req.payload !== undefined && { payload: req.payload }),
        });
      } catch (error) {
        failures.push({
          spec: req.spec,
          kind: `inject threw: ${(error as Error).message}`,
          request: describeRequest(req),
          status: 0,
          body: '',
        });
        return;
      }
      const ms = performance.now() - begin;
      timeBySpec.set(req.spec, (timeBySpec.get(req.spec) ?? 0) + ms);
      if (slowest.length < 10 || ms > (slowest[slowest.length - 1]?.ms ?? 0)) {
        slowest.push({ ms, request: `${req.spec}: ${describeRequest(req)}` });
        slowest.sort((a, b) => b.ms - a.ms);
        slowest.length = Math.min(slowest.length, 10);
      }
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      for (const kind of problemsOf(req, res)) {
        failures.push({
          spec: req.spec,
          kind,
          request: describeRequest(req),
          status: res.statusCode,
          body: excerpt(res.body, 400),
        });
      }
    };
    // One request from every generator first (from the same seed), so that coverage never rests on chance;
    // then the weighted random run.
    for (const [i, spec] of specs.entries()) {
      for (const req of fc.sample(spec.arbitrary, { numRuns: 1, seed: seed + i })) await check(req);
    }
    await fc.assert(fc.asyncProperty(arbitrary, check), {
      seed,
      numRuns: Math.max(0, target - specs.length),
      interruptAfterTimeLimit: seconds * 1000,
      markInterruptAsFailure: false,
    });
    const elapsed = (performance.now() - started) / 1000;
    console.info(
      `[fuzz] ${dialect}: sent ${sent} requests in ${elapsed.toFixed(1)} s (seed ${seed}); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    const costly = [...timeBySpec].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.info(
      `[fuzz] time by generator: ${costly.map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s/${counts.get(k)}`).join('; ')}`,
    );
    console.info(
      `[fuzz] slowest:\n${slowest.map((s) => `  ${s.ms.toFixed(0)} ms ${excerpt(s.request, 300)}`).join('\n')}`,
    );

    // Every route the router knows has a generator; routes that only answer 405 (no handler for that
    // method) are probed once to prove it.
    const uncovered: string[] = [];
    for (const { method, url } of routesOf(t.app)) {
      const key = `${method} ${url}`;
      if (byKey.has(key) || (method === 'POST' && url === '/mcp/v1/common')) continue;
      const probe = await t.app.inject({
        method: method as 'GET',
        url: url.replace(/:[A-Za-z_]+/g, 'x').replace('*', 'x'),
        headers: { authorization: `Bearer ${creds.key}`, cookie: creds.cookie, origin: ORIGIN },
      });
      if (probe.statusCode !== 405) uncovered.push(`${key} (answers ${probe.statusCode}, not 405)`);
    }
    const unused = specs.filter((spec) => !counts.has(spec.key)).map((spec) => spec.key);

    const groups = new Map<string, Failure[]>();
    for (const failure of failures) {
      const group = `${failure.spec} | ${failure.kind.replace(/-?\d+(\.\d+)?/g, 'N')}`;
      groups.set(group, [...(groups.get(group) ?? []), failure]);
    }
    const report = [...groups.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([group, list]) => {
        const first = list[0] as Failure;
        return `${group} ×${list.length}\n    e.g. ${first.kind}\n    ${first.request}\n    → ${first.status} ${first.body}`;
      });
    if (report.length > 0)
      console.info(
        `[fuzz] ${dialect}: ${failures.length} failures in ${report.length} groups (seed ${seed}):\n${report.join('\n')}`,
      );

    expect(uncovered, 'routes without a generator').toEqual([]);
    expect(missingTools, 'MCP tools without a generator').toEqual([]);
    expect(sent, `the time box (${seconds} s) cut the run short`).toBeGreaterThanOrEqual(target);
    expect(unused, 'generators never used').toEqual([]);
    expect(report.join('\n'), `failures (seed ${seed})`).toBe('');
  });
});

/** Content every run starts from (per user): prompts with versions and references, memories, artifacts. */
async function seedContent(
  call: (method: string, url: string, payload?: object) => Promise<LightMyRequestResponse>,
): Promise<Fixtures> {
  const ok = async (method: string, url: string, payload?: object) => {
    const res = await call(method, url, payload);
    if (res.statusCode >= 300) throw new Error(`fixture ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const prompts: string[] = [];
  const base = await ok('POST', '/prompts', {
    title: 'Fuzz base',
    slug: 'fz-base',
    content: 'Hello {{name}}',
    status: 'published',
    available_in_mcp: true,
    variable_schema: { name: { description: 'Who', required: true } },
  });
  await ok('PUT', '/prompts/fz-base', { content: 'Hello {{name}}, again', commit_message: 'second' });
  const ref = await ok('POST', '/prompts', {
    title: 'Fuzz ref',
    slug: 'fz-ref',
    content: 'See @fz-base about {{topic}}',
    available_in_mcp: true,
    labels: ['alpha'],
  });
  const draft = await ok('POST', '/prompts', { title: 'Fuzz draft', slug: 'fz-draft', content: 'Draft @fz-ref' });
  // Kept out of every generator's targets, so its required variable is still there when prompts/get runs.
  await ok('POST', '/prompts', {
    title: 'Fuzz required',
    slug: 'fz-required',
    content: 'Dear {{name}}',
    status: 'published',
    available_in_mcp: true,
    variable_schema: { name: { description: 'Who', required: true } },
  });
  prompts.push('fz-base', 'fz-ref', 'fz-draft', base.id, ref.id, draft.id);
  const disposablePrompts: string[] = [];
  for (let i = 0; i < 10; i++) {
    const created = await ok('POST', '/prompts', {
      title: `Disposable ${i}`,
      slug: `fz-tmp-${i}`,
      content: `Temp ${i}`,
    });
    disposablePrompts.push(i % 2 === 0 ? created.slug : created.id);
  }
  const memories: string[] = [];
  for (const [text, project] of [
    ['Use tabs', 'acme/backend'],
    ['Prefer small functions', 'acme'],
    ['Global note', null],
  ] as const) {
    const created = await ok('POST', '/memories', {
      text,
      project_name: project,
      metadata: { category: 'style', priority: 'high', tags: ['a'] },
    });
    memories.push(created.memory_id);
  }
  const disposableMemories: string[] = [];
  for (let i = 0; i < 10; i++) {
    disposableMemories.push((await ok('POST', '/memories', { text: `Temp memory ${i}` })).memory_id);
  }
  const artifacts = [
    { project: 'acme/backend', slug: 'design' },
    { project: 'acme', slug: 'notes' },
  ];
  for (const a of artifacts) {
    await ok('POST', '/artifacts', { ...a, title: `Artifact ${a.slug}`, content: `# ${a.slug}\nfirst` });
    await ok('PUT', `/artifacts/${encodeURIComponent(a.project)}/${a.slug}`, { content: `# ${a.slug}\nsecond` });
  }
  const disposableArtifacts: Array<{ project: string; slug: string }> = [];
  for (let i = 0; i < 10; i++) {
    const a = { project: 'tmp', slug: `d-${i}` };
    await ok('POST', '/artifacts', { ...a, title: `Temp ${i}`, content: 'x' });
    disposableArtifacts.push(a);
  }
  return {
    prompts,
    disposablePrompts,
    promptWithRequiredVariable: 'fz-required',
    memories,
    disposableMemories,
    artifacts,
    disposableArtifacts,
  };
}
