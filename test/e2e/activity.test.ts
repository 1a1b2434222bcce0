import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser, screenshot } from '../helpers/browser.js';

/**
 * The Activity page (the audit trail) in Debian's Chromium: changes from REST, the CLI and the dashboard
 * itself, with their surface and client, filters, "Show older" paging, and never the content itself.
 */
const EMAIL = 'activity@example.com';
const SECRET_TEXT = 'the launch code is 0000';

describe.runIf(browserAvailable)('dashboard activity page', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let key = '';

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(base);
    await page.getByTestId('signup-email').fill(EMAIL);
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('nav-activity').waitFor();
    ({ key } = await t.key(EMAIL, ['ai_tools', 'cli']));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const rest = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.request(key, { method: 'POST', url: `/api/v1${url}`, payload, headers });
  const rows = () => page.getByTestId('audit-row');

  it('lists changes from every surface with their client, and filters them', async () => {
    expect((await rest('/prompts', { title: 'Tone', slug: 'tone', content: 'Be brief.' })).statusCode).toBe(201);
    const cli = await rest('/memories', { text: SECRET_TEXT }, { 'user-agent': 'cairn-cli/9.9.9' });
    expect(cli.statusCode).toBe(201);

    await page.getByTestId('nav-activity').click();
    await page.getByTestId('audit-table').waitFor();
    // Newest first: the CLI's memory, the REST prompt, the key the operator made, the sign-up's account.
    await expect.poll(() => rows().count()).toBe(4);
    expect(await rows().nth(0).getAttribute('data-surface')).toBe('cli');
    expect(await rows().nth(0).getByTestId('audit-client').textContent()).toBe('cairn-cli 9.9.9');
    expect(await rows().nth(1).getAttribute('data-surface')).toBe('rest');
    expect(await rows().nth(1).getByRole('link', { name: 'tone' }).getAttribute('href')).toBe('#/prompts/tone/edit');
    expect(await rows().nth(2).getByTestId('audit-client').textContent()).toBe('cairn-operator');
    expect(await rows().nth(3).getAttribute('data-surface')).toBe('dashboard');
    expect(await rows().nth(3).textContent()).toContain(EMAIL);
    // Hashes only: the content itself is nowhere on the page.
    expect(await page.locator('main').textContent()).not.toContain(SECRET_TEXT);
    await screenshot(page, 'activity');

    await page.getByTestId('audit-surface').selectOption('rest');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().getAttribute('data-surface')).toBe('rest');
    await page.getByTestId('audit-surface').selectOption('');
    await page.getByTestId('audit-action').selectOption('deleted');
    await page.getByText('No activity').waitFor();
    await page.getByTestId('audit-action').selectOption('');
    await expect.poll(() => rows().count()).toBe(4);
  });

  it('records the dashboard’s own changes as the dashboard, and shows older events on request', async () => {
    await page.goto(`${base}/#/settings/keys`);
    await page.getByTestId('key-name').fill('from the browser');
    await page.getByTestId('key-integration-cli').click();
    await page.getByTestId('key-create').click();
    await page.getByTestId('key-row').filter({ hasText: 'from the browser' }).waitFor();

    // More than a page (50) of events: one batch of 60 memories.
    const batch = await rest('/memories/batch', {
      memories: Array.from({ length: 60 }, (_, i) => ({ text: `memory number ${i}` })),
    });
    expect(batch.statusCode).toBe(201);

    await page.goto(`${base}/#/activity`);
    // The dashboard's own: the key just made, and the account's sign-up.
    await page.getByTestId('audit-surface').selectOption('dashboard');
    await expect.poll(() => rows().count()).toBe(2);
    expect(await rows().first().textContent()).toContain('from the browser');
    await page.getByTestId('audit-surface').selectOption('');
    await expect.poll(() => rows().count()).toBe(50);
    await page.getByTestId('audit-older').click();
    await expect.poll(() => rows().count()).toBe(65);
    expect(await page.getByTestId('audit-older').count()).toBe(0);
  });
});
