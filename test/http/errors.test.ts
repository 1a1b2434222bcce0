import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

describe('HTTP error contract', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { BODY_LIMIT_BYTES: String(64 * 1024) });
    key = (await t.user()).key;
  });
  afterAll(async () => t?.close());

  it('answers unknown routes with 404 not_found JSON', async () => {
    for (const url of ['/nope', '/api/v1/nothing', '/api/v2/prompts']) {
      const res = await t.request(key, { method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('not_found');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('never serves OAuth discovery documents', async () => {
    for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource']) {
      expect((await t.request(undefined, { method: 'GET', url })).statusCode).toBe(404);
    }
  });

  it('answers a known path with an unsupported method with 405 and Allow', async () => {
    const res = await t.request(key, { method: 'PATCH', url: '/api/v1/prompts' });
    expect(res.statusCode).toBe(405);
    expect(res.json().error).toBe('method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    const one = await t.request(key, { method: 'POST', url: '/api/v1/prompts/some-slug' });
    expect(one.statusCode).toBe(405);
    expect(one.headers.allow).toBe('GET, HEAD, PUT, DELETE');
  });

  it('refuses non-JSON bodies with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await t.request(key, {
        method: 'POST',
        url: '/api/v1/prompts',
        headers: { 'content-type': type },
        payload: 'title=x',
      });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().error).toBe('unsupported_media_type');
    }
  });

  it('accepts application/json with a charset', async () => {
    const res = await t.request(key, {
      method: 'POST',
      url: '/api/v1/prompts',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ title: 'Charset', content: 'x' }),
    });
    expect(res.statusCode).toBe(201);
  });

  it('answers malformed JSON with 400 "Request body is not valid JSON"', async () => {
    for (const payload of ['{bad', '{"title": "x",}', '[1,2', 'nul']) {
      const res = await t.request(key, {
        method: 'POST',
        url: '/api/v1/prompts',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json()).toMatchObject({ error: 'validation_error', message: 'Request body is not valid JSON' });
    }
  });

  it('answers an empty JSON body or a non-object body with 400', async () => {
    const empty = await t.request(key, {
      method: 'POST',
      url: '/api/v1/prompts',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toBe('validation_error');
    for (const payload of ['[]', '"text"', '42', 'null']) {
      const res = await t.request(key, {
        method: 'POST',
        url: '/api/v1/prompts',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error).toBe('validation_error');
    }
  });

  it('refuses prototype-poisoning keys with 400', async () => {
    const res = await t.request(key, {
      method: 'POST',
      url: '/api/v1/prompts',
      headers: { 'content-type': 'application/json' },
      payload: '{"title":"x","content":"y","__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('validation_error');
  });

  it('answers deeply nested JSON with a 4xx, never a 500', async () => {
    const depth = 30_000;
    const payload = `{"title":"x","content":"y","labels":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const res = await t.request(key, {
      method: 'POST',
      url: '/api/v1/prompts',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect([400, 413]).toContain(res.statusCode);
    expect(['validation_error', 'payload_too_large']).toContain(res.json().error);
  });

  it('answers a body over the limit with 413 payload_too_large', async () => {
    const res = await t.request(key, {
      method: 'POST',
      url: '/api/v1/prompts',
      payload: { title: 'Big', content: 'x'.repeat(70 * 1024) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('echoes a well-formed X-Request-Id and generates one otherwise', async () => {
    const echoed = await t.request(key, {
      method: 'GET',
      url: '/api/v1/prompts',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const hostile = await t.request(key, {
      method: 'GET',
      url: '/api/v1/prompts',
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const generated = await t.request(undefined, { method: 'GET', url: '/nope' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never puts internals in a 500 body', async () => {
    const failing = await createTestApp('sqlite');
    const user = await failing.user();
    // Close the database under the running app: the next query fails unexpectedly.
    await failing.container.database.close();
    const res = await failing.request(user.key, { method: 'GET', url: '/api/v1/prompts' });
    expect(res.statusCode).toBe(500);
    // Only the request id the failure was logged under: no SQL, stack or path.
    const id = res.headers['x-request-id'] as string;
    expect(res.json()).toEqual({
      error: 'internal_error',
      message: `An unexpected error occurred (request ${id})`,
      request_id: id,
    });
    await failing.app.close();
    await failing.database.drop();
  });
});

describe('health and API description', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t?.close());

  it('serves /healthz and /readyz without a key', async () => {
    expect((await t.request(undefined, { method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.request(undefined, { method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('serves an OpenAPI 3.1 document that matches the routes', async () => {
    const res = await t.request(undefined, { method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/v1/prompts',
        'POST /api/v1/prompts',
        'GET /api/v1/prompts/{id_or_slug}',
        'PUT /api/v1/prompts/{id_or_slug}',
        'DELETE /api/v1/prompts/{id_or_slug}',
        'GET /api/v1/prompts/{id_or_slug}/versions',
        'GET /api/v1/prompts/{id_or_slug}/versions/{version}',
        'POST /api/v1/prompts/{id_or_slug}/restore',
        'POST /api/v1/prompts/{id_or_slug}/render',
        'GET /api/v1/prompts/{id_or_slug}/referenced-by',
        'GET /api/v1/prompts/{id_or_slug}/environments',
        'PUT /api/v1/prompts/{id_or_slug}/environments/{name}',
        'DELETE /api/v1/prompts/{id_or_slug}/environments/{name}',
        'GET /api/v1/export',
        'POST /api/v1/import',
        'GET /api/v1/me',
        'GET /api/v1/context',
        'GET /api/v1/memories',
        'POST /api/v1/memories',
        'POST /api/v1/memories/batch',
        'GET /api/v1/memories/{memory_id}',
        'PUT /api/v1/memories/{memory_id}',
        'DELETE /api/v1/memories/{memory_id}',
        'GET /api/v1/memories/{memory_id}/versions',
        'GET /api/v1/memories/{memory_id}/versions/{version}',
        'POST /api/v1/memories/{memory_id}/restore',
        'GET /api/v1/artifacts',
        'POST /api/v1/artifacts',
        'GET /api/v1/artifacts/{project}/{slug}',
        'PUT /api/v1/artifacts/{project}/{slug}',
        'DELETE /api/v1/artifacts/{project}/{slug}',
        'GET /api/v1/artifacts/{project}/{slug}/raw',
        'GET /api/v1/artifacts/{project}/{slug}/versions',
        'GET /api/v1/artifacts/{project}/{slug}/versions/{n}',
        'GET /api/v1/audit',
        'GET /api/v1/webhooks',
        'POST /api/v1/webhooks',
        'GET /api/v1/webhooks/{id}',
        'PUT /api/v1/webhooks/{id}',
        'DELETE /api/v1/webhooks/{id}',
        'POST /api/v1/webhooks/{id}/rotate-secret',
        'POST /api/v1/webhooks/{id}/test',
        'GET /api/v1/webhooks/{id}/deliveries',
        'GET /api/v1/webhooks/{id}/attempts',
      ].sort(),
    );
    const create = doc.paths['/api/v1/prompts'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '409', '429']));
    const body = create.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['title', 'content']));
    expect(body.additionalProperties).toBe(false);
  });

  it('serves a readable API reference page', async () => {
    const res = await t.request(undefined, { method: 'GET', url: '/api/v1/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
