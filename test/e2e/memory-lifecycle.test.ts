import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser, screenshot } from '../helpers/browser.js';

/** Issue 18, items 1–3 in the dashboard: set expiry, pin and replacements; see the state; the stale filter. */
describe.runIf(browserAvailable)('memory lifecycle in the dashboard (Chromium)', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(base);
    await page.getByTestId('signup-email').fill('life@example.com');
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('nav-memories').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const rows = () => page.getByTestId('memory-row');
  const texts = async () => (await rows().allTextContents()).join('\n');
  const create = async (text: string, extra: (p: Page) => Promise<void> = async () => {}) => {
    await page.getByTestId('nav-memories').click();
    await page.getByTestId('memory-new').click();
    await page.getByTestId('memory-text').fill(text);
    await page.getByTestId('memory-project').fill('life/web');
    await extra(page);
    await page.getByTestId('memory-save').click();
    await page.getByTestId('nav-memories').click();
  };

  it('creates expiring, pinned and replacing memories, shows their state, and lists the stale ones', async () => {
    await create('Old fact: the API runs on port 3000');
    const old = rows().filter({ hasText: 'Old fact' });
    await old.waitFor();
    const oldId = (await old.getAttribute('data-memory-id')) ?? '';
    expect(oldId).toMatch(/^mem_/);
    await create('Expired note about the freeze', (p) => p.getByTestId('memory-expires').fill('2020-01-01T00:00'));
    await create('New fact: the API runs on port 8080', (p) => p.getByTestId('memory-supersedes').fill(oldId));
    await create('Pinned rule: never deploy on Fridays', (p) => p.getByTestId('memory-pinned-check').check());

    await rows().filter({ hasText: 'Pinned rule' }).getByTestId('memory-pinned').waitFor();
    const current = await texts();
    expect(current).toContain('New fact');
    expect(current).not.toContain('Old fact');
    expect(current).not.toContain('Expired note');

    await page.getByTestId('memory-filter-show').selectOption('stale');
    await rows().filter({ hasText: 'Old fact' }).getByTestId('memory-superseded').waitFor();
    await rows().filter({ hasText: 'Expired note' }).getByTestId('memory-expired').waitFor();
    expect(await rows().count()).toBe(2);
    await screenshot(page, 'memories-stale');

    // Clearing the expiry brings the note back among the current memories.
    await rows().filter({ hasText: 'Expired note' }).getByTestId('memory-edit').click();
    await page.getByTestId('memory-expires').fill('');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('nav-memories').click();
    await page.getByTestId('memory-filter-show').selectOption('');
    await rows().filter({ hasText: 'Expired note' }).waitFor();
    expect(await texts()).not.toContain('Old fact');
  });
});
