import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * The API reference (Swagger UI at /api/v1/docs, src/http/api-docs.ts) is loaded on its first request and
 * served by an instance of its own: its answers must be what the server's own routes would give — the
 * document of /api/v1/openapi.json, the contract's errors, the request's id, the server's 405s.
 */
describe('API reference at /api/v1/docs', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  const get = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);

  it('serves the page, its files and the server’s own document, each with the request’s id', async () => {
    // Several first requests at once: one docs instance is built, and every one of them is answered.
    const pages = await Promise.all(
      ['/api/v1/docs', '/api/v1/docs/', '/api/v1/docs/static/index.html'].map((path, i) =>
        get(path, { headers: { 'x-request-id': `docs-${i}` } }),
      ),
    );
    for (const [i, page] of pages.entries()) {
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('x-request-id')).toBe(`docs-${i}`);
      expect(await page.text()).toContain('swagger');
    }

    const document = await (await get('/api/v1/openapi.json')).json();
    const json = await get('/api/v1/docs/json');
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual(document);
    const yaml = await get('/api/v1/docs/yaml');
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
    expect(parseYaml(await yaml.text())).toEqual(document);

    const initializer = await get('/api/v1/docs/static/swagger-initializer.js');
    expect(initializer.headers.get('content-type')).toMatch(/javascript/);
    expect(await initializer.text()).toContain('docExpansion');
    const css = await get('/api/v1/docs/static/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers a missing file or a way out of its folder with the contract’s 404', async () => {
    for (const path of [
      '/api/v1/docs/static/no-such-file.js',
      '/api/v1/docs/static/..%2f..%2f..%2fpackage.json',
      '/api/v1/docs/../../package.json',
    ]) {
      const response = await get(path, { headers: { 'x-request-id': 'missing' } });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('x-request-id')).toBe('missing');
      const body = await response.json();
      expect(body).toMatchObject({ error: 'not_found' });
      expect(JSON.stringify(body)).not.toContain('"name":"cairn"');
    }
  });

  it('answers HEAD like GET without a body, and other methods with the server’s 405', async () => {
    const head = await get('/api/v1/docs/static/index.html', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get('/api/v1/docs/json', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toMatch(/GET/);
    expect(await post.json()).toMatchObject({ error: 'method_not_allowed' });
  });
});
