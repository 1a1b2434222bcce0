import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, horizontalOverflow, launchBrowser, screenshot } from '../helpers/browser.js';

/**
 * The dashboard in a real browser (Debian's Chromium driven by playwright-core): the flows a person walks,
 * plus an XSS probe. Screenshots of the main pages: see test/helpers/browser.ts.
 */
describe.runIf(browserAvailable)('dashboard in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    // Any alert/confirm/prompt opened by page content would be an XSS: record and dismiss it.
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = (name: string) => screenshot(page, name);

  it('signs up the first user and lands on the dashboard', async () => {
    await page.goto(base);
    await page.getByTestId('signup-email').fill('owner@example.com');
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('nav-keys').waitFor();
    expect(await page.getByTestId('nav-admin').count()).toBe(1);
  });

  let key = '';
  it('creates an API key shown once, uses it with fetch, then revokes it and sees 401', async () => {
    await page.getByTestId('nav-keys').click();
    await page.getByTestId('key-name').fill('Browser test');
    await page.getByTestId('key-integration-cli').check();
    await page.getByTestId('key-integration-ai_tools').check();
    await page.getByTestId('key-create').click();
    key = (await page.getByTestId('new-key-value').textContent())?.trim() ?? '';
    expect(key).toMatch(/^svk_[A-Za-z0-9]{64}$/);
    await shot('keys');

    const call = (k: string) =>
      page.evaluate(async (apiKey) => {
        const res = await fetch('/api/v1/prompts', { headers: { authorization: `Bearer ${apiKey}` } });
        return res.status;
      }, k);
    expect(await call(key)).toBe(200);
    for (let i = 0; i < 4; i++) await call(key);

    await page.getByTestId('new-key-done').click();
    await page.getByTestId('key-row').first().getByTestId('key-revoke').click();
    await page.getByTestId('confirm-ok').click();
    await page
      .getByTestId('key-status')
      .filter({ hasText: /revoked/i })
      .first()
      .waitFor();
    expect(await call(key)).toBe(401);
  });

  it('creates, edits and deletes a prompt, showing stored <script> as text', async () => {
    await page.getByTestId('nav-prompts').click();
    await page.getByTestId('prompt-new').click();
    await page.getByTestId('prompt-title').fill('<script>alert("xss")</script> Review');
    await page.getByTestId('prompt-content').fill('Review this {{language}} code using @missing-guide');
    await page.getByTestId('prompt-variable').filter({ hasText: 'language' }).waitFor();
    await page.getByTestId('prompt-broken-warning').waitFor();
    await shot('prompt-editor');
    await page.getByTestId('prompt-save').click();
    await page.getByTestId('nav-prompts').click();
    const row = page.getByTestId('prompt-row').filter({ hasText: '<script>alert("xss")</script> Review' });
    await row.waitFor();
    await shot('prompts');

    await row.getByTestId('prompt-link').click();
    await page.getByTestId('prompt-title').fill('Edited review');
    await page.getByTestId('prompt-save').click();
    await page.getByTestId('nav-prompts').click();
    const edited = page.getByTestId('prompt-row').filter({ hasText: 'Edited review' });
    await edited.waitFor();
    await edited.getByTestId('prompt-link').click();
    await page.getByTestId('prompt-delete').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('nav-prompts').click();
    await page.getByTestId('empty').waitFor();
    expect(dialogs).toEqual([]);
  });

  it('creates memories, finds them by ranked search with scores, edits and deletes one', async () => {
    await page.getByTestId('nav-memories').click();
    for (const [text, priority] of [
      ['Use strict TypeScript everywhere', 'high'],
      ['Prefer small TypeScript modules', 'low'],
    ] as const) {
      await page.getByTestId('memory-new').click();
      await page.getByTestId('memory-text').fill(text);
      await page.getByTestId('memory-project').fill('acme/web');
      await page.getByTestId('memory-priority').selectOption(priority);
      await page.getByTestId('memory-tags').fill('ts, style');
      await page.getByTestId('memory-save').click();
      await page.getByTestId('nav-memories').click();
      await page.getByTestId('memory-row').filter({ hasText: text }).waitFor();
    }
    await page.getByTestId('memory-search').fill('typescript');
    await page.getByTestId('memory-search').press('Enter');
    await page.getByTestId('memory-score').first().waitFor();
    const rows = page.getByTestId('memory-row');
    expect(await rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain('Use strict TypeScript everywhere');
    await shot('memories');

    await rows.filter({ hasText: 'Prefer small' }).getByTestId('memory-edit').click();
    await page.getByTestId('memory-text').fill('Prefer small, focused TypeScript modules');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('nav-memories').click();
    const edited = page.getByTestId('memory-row').filter({ hasText: 'focused' });
    await edited.waitFor();
    await edited.getByTestId('memory-delete').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('memory-row').filter({ hasText: 'focused' }).waitFor({ state: 'detached' });
  });

  it('creates an artifact, renders its Markdown safely, edits it into a new version and deletes it', async () => {
    await page.getByTestId('nav-artifacts').click();
    await page.getByTestId('artifact-new').click();
    await page.getByTestId('artifact-project').fill('acme/docs');
    await page.getByTestId('artifact-title').fill('Design notes');
    await page.getByTestId('artifact-content').fill('# Design\n\n**Bold** text <img src=x onerror=alert(1)>\n');
    await page.getByTestId('artifact-save').click();
    await page.getByTestId('artifact-view').waitFor();
    const view = page.getByTestId('artifact-view');
    expect(await view.locator('h1').textContent()).toBe('Design');
    expect(await view.locator('strong').textContent()).toBe('Bold');
    expect(await view.locator('img').count()).toBe(0);
    expect(await view.textContent()).toContain('<img src=x onerror=alert(1)>');
    await shot('artifact');

    await page.getByTestId('artifact-edit').click();
    await page.getByTestId('artifact-content').fill('# Design\n\nSecond version.\n');
    await page.getByTestId('artifact-save').click();
    await page.getByTestId('artifact-view').filter({ hasText: 'Second version.' }).waitFor();
    await page.getByTestId('artifact-versions').waitFor();
    expect(await page.getByTestId('artifact-version-row').count()).toBe(2);
    await page.getByTestId('artifact-delete').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('nav-artifacts').click();
    await page.getByTestId('empty').waitFor();
    expect(dialogs).toEqual([]);
  });

  it('shows usage moving after API requests', async () => {
    await t.container.usage.flush();
    await page.getByTestId('nav-usage').click();
    await page.getByTestId('usage-chart').waitFor();
    const total = await page.getByTestId('usage-total').textContent();
    expect(Number((total ?? '').replace(/\D/g, ''))).toBeGreaterThanOrEqual(5);
    await shot('usage');
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    // At this width the menu folds behind its button (test/e2e/phone.test.ts covers it).
    await page.getByTestId('menu-toggle').click();
    await page.getByTestId('nav-memories').click();
    await page.getByTestId('memory-row').first().waitFor();
    const overflow = await horizontalOverflow(page);
    expect(overflow).toBeLessThanOrEqual(1);
    await shot('memories-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('logs out, and the old session no longer works', async () => {
    await page.getByTestId('logout').click();
    await page.getByTestId('login-email').waitFor();
    const status = await page.evaluate(async () => (await fetch('/dashboard/api/me')).status);
    expect(status).toBe(401);
    expect(dialogs).toEqual([]);
  });
});
