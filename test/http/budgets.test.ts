import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_MIN_CHARS } from '../../src/contract/index.js';
import { PREVIEW_MARKER } from '../../src/domain/common/budget.js';
import { createTestApp, manualClock, type TestApp } from '../helpers/app.js';
import { awkwardText, lengths, SEED } from '../helpers/budget-data.js';
import { DIALECTS } from '../helpers/databases.js';
import type { Json } from '../helpers/json.js';

type User = Awaited<ReturnType<TestApp['user']>>;

/**
 * `max_chars` and `cursor` over HTTP: the body a client receives is at most `max_chars` characters, pages cut
 * short continue exactly where they stopped, and `GET /api/v1/context` is bounded, deterministic, private and
 * for `ai_tools` keys only.
 */
describe.each(DIALECTS)('budgets and the context block over REST (%s)', (dialect) => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let t: TestApp;
  let alice: User;
  let bob: User;
  const texts = new Map<string, string>();

  const get = (key: string, url: string) => t.request(key, { method: 'GET', url });
  const post = (key: string, url: string, payload: object) => t.request(key, { method: 'POST', url, payload });

  beforeAll(async () => {
    t = await createTestApp(dialect, { BODY_LIMIT_BYTES: String(4 * 1024 * 1024) }, { clock });
    alice = await t.user();
    bob = await t.user();
    const projects = ['acme', 'acme/backend', null];
    for (const [i, length] of lengths(24, 50_000, SEED + 20).entries()) {
      clock.advance(1000);
      const text = awkwardText(length, SEED + 2000 + i);
      // Short generated texts can repeat: every one must be a row of its own here.
      const res = await post(alice.key, '/api/v1/memories?dedupe=false', {
        text,
        project_name: projects[i % 3],
        metadata: { priority: i % 4 === 0 ? 'high' : 'medium', tags: ['deploy'] },
      });
      expect(res.statusCode).toBe(201);
      texts.set(res.json().memory_id, text);
    }
    for (let i = 0; i < 12; i++) {
      const created = await post(alice.key, '/api/v1/prompts', {
        title: `Prompt ${i}`,
        content: `{{topic}} ${awkwardText(5_000 * (i + 1), SEED + 2100 + i)}`,
        available_in_mcp: i % 2 === 0,
      });
      expect(created.statusCode).toBe(201);
      await post(alice.key, '/api/v1/artifacts', {
        project: 'acme/backend',
        title: `Doc ${i}`,
        content: 'x',
        metadata: { note: awkwardText(3_000, SEED + 2200 + i) },
      });
    }
    await post(bob.key, '/api/v1/memories', {
      text: 'SECRET-BOB deploy',
      project_name: 'acme',
      metadata: { priority: 'high' },
    });
    await post(bob.key, '/api/v1/artifacts', { project: 'acme/backend', title: 'SECRET-BOB', content: 'x' });
    await post(bob.key, '/api/v1/prompts', { title: 'SECRET-BOB', content: 'x', available_in_mcp: true });
  }, 120_000);
  afterAll(async () => t?.close());

  /** Follows next_cursor over HTTP; every body within the budget; the items in order. */
  async function follow(url: (cursor: string | null) => string, key: string, maxChars: number): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const res = await get(key, url(cursor));
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.body.length).toBeLessThanOrEqual(maxChars);
      expect(res.body).not.toContain('SECRET-BOB');
      const body = res.json();
      items.push(...(body.memories ?? body.prompts ?? body.artifacts));
      cursor = body.next_cursor;
      if (cursor === null) return items;
    }
    throw new Error('no end after 100 pages');
  }

  it('bounds every list body by max_chars and continues each cut page exactly where it stopped', async () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/memories', 'per_page=100'],
      ['/api/v1/memories', 'search=deploy&project_name=acme/backend&per_page=7&explain=true'],
      ['/api/v1/memories', 'search=&per_page=50'],
      ['/api/v1/prompts', 'full=true&per_page=100'],
      ['/api/v1/artifacts', 'per_page=5'],
    ];
    for (const [path, query] of cases) {
      for (const maxChars of [BUDGET_MIN_CHARS, 7_000, 50_000]) {
        const whole = await follow((c) => `${path}?${query}${c === null ? '' : `&cursor=${c}`}`, alice.key, 10_000_000);
        const cut = await follow(
          (c) => `${path}?${query}&max_chars=${maxChars}${c === null ? '' : `&cursor=${c}`}`,
          alice.key,
          maxChars,
        );
        const id = (item: Json) => item.memory_id ?? item.id;
        expect(cut.map(id), `${path}?${query} at ${maxChars}`).toEqual(whole.map(id));
      }
    }
  });

  it('marks previews, and their id reads the whole memory', async () => {
    const res = await get(alice.key, '/api/v1/memories?per_page=100&max_chars=6000');
    const previews = (res.json().memories as Json[]).filter((m) => m.truncated === true);
    expect(previews.length).toBeGreaterThan(0);
    for (const preview of previews) {
      expect(preview.text.endsWith(PREVIEW_MARKER) || preview.text === texts.get(preview.memory_id)).toBe(true);
      const whole = await get(alice.key, `/api/v1/memories/${preview.memory_id}`);
      expect(whole.json().text).toBe(texts.get(preview.memory_id));
    }
    // Without max_chars nothing changes: whole items, no truncated flag, and a next_cursor.
    const plain = (await get(alice.key, '/api/v1/memories?per_page=3')).json();
    expect(plain.memories.every((m: Json) => m.truncated === undefined && m.text === texts.get(m.memory_id))).toBe(
      true,
    );
    expect(plain).toMatchObject({ page: 1, per_page: 3, next_cursor: '3', total: 24 });
    const cursorPage = (await get(alice.key, '/api/v1/memories?per_page=3&cursor=7')).json();
    expect(cursorPage).toMatchObject({ page: 3, per_page: 3, next_cursor: '10' });
  });

  it('refuses budgets and cursors out of range, naming them', async () => {
    for (const [url, field] of [
      ['/api/v1/memories?max_chars=1999', 'max_chars'],
      ['/api/v1/prompts?max_chars=1000001', 'max_chars'],
      ['/api/v1/artifacts?max_chars=many', 'max_chars'],
      ['/api/v1/memories?cursor=abc', 'cursor'],
      ['/api/v1/prompts?cursor=1234567', 'cursor'],
      ['/api/v1/artifacts?cursor=5&page=2', 'cursor'],
      ['/api/v1/memories?search=deploy&cursor=600', 'cursor'],
      ['/api/v1/context?max_chars=10', 'max_chars'],
      [`/api/v1/context?task=${'x'.repeat(2001)}`, 'task'],
      ['/api/v1/context?project_name=a//b', 'project_name'],
    ] as const) {
      const res = await get(alice.key, url);
      expect(res.statusCode, url).toBe(400);
      expect(Object.keys(res.json().details), url).toEqual([field]);
    }
  });

  describe('GET /api/v1/context', () => {
    it('answers ai_tools keys only: cli, mcp_server and marketplace keys get 401 naming ai_tools', async () => {
      expect((await get(alice.key, '/api/v1/context')).statusCode).toBe(200);
      for (const integrations of [['cli'], ['mcp_server'], ['marketplace']] as const) {
        const { key } = await t.key(alice.email, [...integrations]);
        const res = await get(key, '/api/v1/context');
        expect(res.statusCode, integrations.join()).toBe(401);
        expect(res.json().message).toMatch(/ai_tools/);
      }
    });

    it('is bounded and deterministic, pins ancestors’ and global high-priority memories, and shows only the caller’s', async () => {
      for (const maxChars of [BUDGET_MIN_CHARS, 5_000, 20_000, 200_000]) {
        const url = `/api/v1/context?project_name=acme/backend&task=${encodeURIComponent('deploy the service')}&max_chars=${maxChars}`;
        const first = await get(alice.key, url);
        const second = await get(alice.key, url);
        expect(first.statusCode).toBe(200);
        expect(first.body.length).toBeLessThanOrEqual(maxChars);
        expect(second.body).toBe(first.body);
        expect(first.body).not.toContain('SECRET-BOB');
        const block = first.json();
        expect(block.max_chars).toBe(maxChars);
        const shown =
          block.pinned_memories.length + block.relevant_memories.length + block.prompts.length + block.artifacts.length;
        if (maxChars === 200_000) {
          const places = new Set(block.pinned_memories.map((m: Json) => m.project_name));
          expect(places).toEqual(new Set(['acme', 'acme/backend', null]));
          expect(block.prompts.map((p: Json) => p.name).sort()).toEqual(
            ['prompt-0', 'prompt-2', 'prompt-4', 'prompt-6', 'prompt-8', 'prompt-10'].sort(),
          );
          expect(block.artifacts).toHaveLength(12);
        } else {
          // Smaller budgets shrink the block: previews, and at the smallest items left out (and counted).
          const previews = [...block.pinned_memories, ...block.relevant_memories].filter((m: Json) => m.truncated);
          const leftOut = block.left_out.memories + block.left_out.prompts + block.left_out.artifacts;
          expect(previews.length + leftOut).toBeGreaterThan(0);
          if (maxChars === BUDGET_MIN_CHARS) expect(leftOut).toBeGreaterThan(0);
          expect(shown).toBeGreaterThan(0);
        }
      }
      // Bob sees his own block only.
      const bobs = await get(bob.key, '/api/v1/context?project_name=acme/backend');
      expect(bobs.json().pinned_memories.map((m: Json) => m.text)).toEqual(['SECRET-BOB deploy']);
      expect(bobs.json().artifacts.map((a: Json) => a.title)).toEqual(['SECRET-BOB']);
    });
  });
});
