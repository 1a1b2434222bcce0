import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, horizontalOverflow, launchBrowser } from '../helpers/browser.js';
import type { Json } from '../helpers/json.js';

/**
 * A memory's history in the dashboard (issue 18, item 5): the list of versions from the editor, a version
 * read whole, restore, and another user's memory history as "not found". Outcomes are checked in the page
 * and through the dashboard API.
 */
const XSS = '<img src=x onerror=alert(1)> first words';

describe.runIf(browserAvailable)('memory history in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let memoryId = '';
  const dialogs: string[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const call = (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> =>
    page.evaluate(
      async ({ method, path, body }) => {
        const response = await fetch(`/dashboard/api${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? null : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      },
      { method, path, body },
    );

  it('signs up and creates a memory, then edits it twice', async () => {
    await page.goto(base);
    await page.getByTestId('signup-email').fill('history@example.com');
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('nav-prompts').waitFor();

    const created = await call('POST', '/memories', {
      text: XSS,
      project_name: 'acme/web',
      metadata: { priority: 'low' },
    });
    expect(created.status).toBe(201);
    memoryId = created.body.memory_id;

    await page.goto(`${base}/#/memories/${memoryId}`);
    await page.getByTestId('memory-text').fill('Second words');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('notice').filter({ hasText: 'saved' }).waitFor();
    await page.goto(`${base}/#/memories/${memoryId}`);
    await page.getByTestId('memory-priority').selectOption('high');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('notice').filter({ hasText: 'saved' }).waitFor();
    expect((await call('GET', `/memories/${memoryId}/versions`)).body.total).toBe(3);
  });

  it('shows the history from the editor, newest first, and a version whole', async () => {
    await page.goto(`${base}/#/memories/${memoryId}`);
    await page.getByTestId('memory-history-link').click();
    await page.waitForURL(/#\/memories\/mem_\w+\/history$/);
    await expect.poll(() => page.getByTestId('memory-history-row').count()).toBe(3);
    const rows = page.getByTestId('memory-history-row');
    expect(await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-version')))).toEqual(['3', '2', '1']);
    expect(await rows.first().getAttribute('aria-current')).toBe('true');
    expect(await rows.first().getByTestId('memory-history-restore').count()).toBe(0);
    const first = page.locator('[data-testid="memory-history-row"][data-version="1"]');
    // Text, never HTML.
    expect(await first.getByTestId('memory-history-preview').textContent()).toBe(XSS);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    await first.getByTestId('memory-history-show').click();
    const whole = first.getByTestId('memory-history-whole');
    await whole.waitFor();
    expect(await whole.textContent()).toContain('"priority": "low"');
    expect(await horizontalOverflow(page)).toBe(0);
  });

  it('restores version 1 as a new version', async () => {
    await page
      .locator('[data-testid="memory-history-row"][data-version="1"]')
      .getByTestId('memory-history-restore')
      .click();
    await page.getByTestId('confirm-dialog').waitFor();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('notice').filter({ hasText: 'Version 1 restored as version 4' }).waitFor();
    await page.waitForURL(new RegExp(`#/memories/${memoryId}$`));
    expect(await page.getByTestId('memory-text').inputValue()).toBe(XSS);

    const current = await call('GET', `/memories/${memoryId}`);
    expect(current.body).toMatchObject({ text: XSS, project_name: 'acme/web', metadata: { priority: 'low' } });
    const versions = await call('GET', `/memories/${memoryId}/versions`);
    expect(versions.body.versions.map((v: Json) => v.version)).toEqual([4, 3, 2, 1]);
    expect(dialogs).toEqual([]);
  });

  it("another user's memory history is not found", async () => {
    const other = await t.user();
    const theirs = await t.request(other.key, { method: 'POST', url: '/api/v1/memories', payload: { text: 'Theirs' } });
    const id = theirs.json().memory_id;
    expect((await call('GET', `/memories/${id}/versions`)).status).toBe(404);
    expect((await call('POST', `/memories/${id}/restore`, { version: 1 })).status).toBe(404);
    await page.goto(`${base}/#/memories/${id}/history`);
    await page
      .getByRole('alert')
      .filter({ hasText: /not found/i })
      .waitFor();
    expect(await page.getByTestId('memory-history-row').count()).toBe(0);
  });
});
