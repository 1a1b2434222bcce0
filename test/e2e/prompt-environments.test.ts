import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, horizontalOverflow, launchBrowser, screenshot } from '../helpers/browser.js';
import type { Json } from '../helpers/json.js';

/**
 * Environments in the dashboard (issue 19): the history view lists a prompt's pointers, points a new one at
 * a version, moves it to another and removes it; each outcome is checked in the page and through the API.
 */
describe.runIf(browserAvailable)('prompt environments in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
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
  const pointers = async () =>
    (
      (await call('GET', '/prompts/greeting/environments')).body.environments as Array<{
        name: string;
        version: number;
      }>
    ).map((e) => [e.name, e.version]);
  const row = (name: string) => page.locator(`[data-testid="environment-row"][data-environment="${name}"]`);

  it('signs up and makes a prompt with three versions', async () => {
    await page.goto(base);
    await page.getByTestId('signup-email').fill('environments@example.com');
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('nav-prompts').waitFor();
    expect((await call('POST', '/prompts', { title: 'Greeting', slug: 'greeting', content: 'hello one' })).status).toBe(
      201,
    );
    for (const content of ['hello two', 'hello three']) {
      expect((await call('PUT', '/prompts/greeting', { content })).status).toBe(200);
    }
  });

  it('points a new environment at an older version from the history view', async () => {
    await page.goto(`${base}/#/prompts/greeting/history`);
    await page.getByTestId('environments-empty').waitFor();
    await page.getByTestId('environment-name').fill('production');
    await page.getByTestId('environment-version').selectOption('1');
    await page.getByTestId('environment-set').click();
    await page
      .getByTestId('environment-notice')
      .getByText("Environment 'production' now points to version 1")
      .waitFor();
    await row('production').waitFor();
    expect(await row('production').getAttribute('data-version')).toBe('1');
    // The version row shows the pointer too.
    await page
      .locator('[data-testid="history-row"][data-version="1"] [data-testid="history-environment"]', {
        hasText: 'production',
      })
      .waitFor();
    expect(await pointers()).toEqual([['production', 1]]);
    expect((await call('GET', '/prompts/greeting?environment=production')).body.content).toBe('hello one');
  });

  it('refuses a name that breaks the slug rules before sending it', async () => {
    await page.getByTestId('environment-name').fill('Not Valid');
    expect(await page.getByTestId('environment-set').isDisabled()).toBe(true);
    await page.getByTestId('environment-name').fill('');
  });

  it('moves the pointer to another version, and the read through it follows', async () => {
    await row('production').getByTestId('environment-move').click();
    expect(await page.getByTestId('environment-name').inputValue()).toBe('production');
    await page.getByTestId('environment-version').selectOption('3');
    await page.getByTestId('environment-set').click();
    await page
      .getByTestId('environment-notice')
      .getByText("Environment 'production' now points to version 3")
      .waitFor();
    await page.locator('[data-testid="environment-row"][data-environment="production"][data-version="3"]').waitFor();
    await page
      .locator('[data-testid="history-row"][data-version="3"] [data-testid="history-environment"]', {
        hasText: 'production',
      })
      .waitFor();
    expect(await pointers()).toEqual([['production', 3]]);
    expect((await call('GET', '/prompts/greeting?environment=production')).body.content).toBe('hello three');
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'prompt-environments');
  });

  it('removes the pointer after confirmation', async () => {
    await row('production').getByTestId('environment-remove').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('environments-empty').waitFor();
    expect(await pointers()).toEqual([]);
    expect((await call('GET', '/prompts/greeting?environment=production')).status).toBe(404);
  });
});
