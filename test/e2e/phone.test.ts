import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, horizontalOverflow, launchBrowser, screenshot } from '../helpers/browser.js';

/**
 * The dashboard on a phone (375 × 812 CSS pixels, the width of the smallest phones in common use), in Debian's
 * Chromium: every page reachable from the menu, tables that fit or visibly scroll, a usage chart whose axis
 * says which day it is, counts with the right plural, and success messages that do not outstay their action.
 */
const WIDTH = 375;
const HEIGHT = 812;
const EMAIL = 'phone@example.com';
const MENU = [
  'nav-prompts',
  'nav-memories',
  'nav-artifacts',
  'nav-usage',
  'nav-activity',
  'nav-keys',
  'nav-webhooks',
  'nav-account',
  'nav-admin',
];

describe.runIf(browserAvailable)('dashboard at phone width', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let key = '';

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
    // Shorter than the test's own time limit, so a missing element fails with Playwright's explanation.
    page.setDefaultTimeout(10_000);
    await page.goto(base);
    await page.getByTestId('signup-email').fill(EMAIL);
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('menu-toggle').waitFor();
    ({ key } = await t.key(EMAIL, ['ai_tools']));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const toggle = () => page.getByTestId('menu-toggle');
  const expanded = async () => (await toggle().getAttribute('aria-expanded')) === 'true';

  /** Opens the menu and follows one of its entries, as a person would. */
  async function go(testId: string) {
    if (!(await expanded())) await toggle().click();
    await page.getByTestId(testId).click();
    await page.locator(`[data-testid="${testId}"][aria-current="page"]`).waitFor({ state: 'attached' });
  }

  /** The element's box lies wholly inside the window. */
  async function inViewport(locator: Locator): Promise<boolean> {
    const box = await locator.boundingBox();
    if (!box) return false;
    return box.x >= 0 && box.y >= 0 && box.x + box.width <= WIDTH + 0.5 && box.y + box.height <= HEIGHT + 0.5;
  }

  it('reaches every page from the Menu button, with the menu inside the window', async () => {
    // Folded at first: the links take no room until asked for.
    expect(await expanded()).toBe(false);
    expect(await page.getByTestId('nav-usage').isVisible()).toBe(false);
    expect(await toggle().getAttribute('aria-controls')).toBeTruthy();

    for (const testId of MENU) {
      await toggle().click();
      expect(await expanded()).toBe(true);
      // Every entry (not just the one about to be followed) is whole and inside the window.
      for (const entry of MENU) {
        expect(await page.getByTestId(entry).isVisible(), entry).toBe(true);
        expect(await inViewport(page.getByTestId(entry)), entry).toBe(true);
      }
      expect(await inViewport(page.getByTestId('logout'))).toBe(true);
      if (testId === 'nav-usage') await screenshot(page, 'menu-phone');
      await page.getByTestId(testId).click();
      await page.locator(`[data-testid="${testId}"][aria-current="page"]`).waitFor({ state: 'attached' });
      // Following a link folds the menu again, so the page is what the person sees.
      expect(await expanded()).toBe(false);
      expect(await page.getByTestId(testId).isVisible()).toBe(false);
      expect(await horizontalOverflow(page), testId).toBeLessThanOrEqual(1);
    }
  });

  it('works from the keyboard: Enter opens, Tab reaches the links, Escape closes and returns the focus', async () => {
    await toggle().focus();
    await page.keyboard.press('Enter');
    expect(await expanded()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('data-testid')).toBe('nav-prompts');
    await page.keyboard.press('Escape');
    expect(await expanded()).toBe(false);
    expect(await page.locator(':focus').getAttribute('data-testid')).toBe('menu-toggle');
    // Space works too (it is a real button), and Enter on a link follows it and folds the menu.
    await page.keyboard.press('Space');
    expect(await expanded()).toBe(true);
    await page.getByTestId('nav-artifacts').focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="nav-artifacts"][aria-current="page"]').waitFor({ state: 'attached' });
    expect(await expanded()).toBe(false);
  });

  it('labels the usage chart with dates across midnight, distinct labels, and "1 request"', async () => {
    expect((await t.request(key, { method: 'GET', url: '/api/v1/prompts' })).statusCode).toBe(200);
    await t.container.usage.flush();
    await go('nav-usage');
    await page.getByTestId('usage-chart').waitFor();
    const totalLine = page.locator('.big-number').filter({ has: page.getByTestId('usage-total') });
    expect((await totalLine.textContent())?.replace(/\s+/g, ' ').trim()).toBe('1 request');

    // The window is 48 hours, so it always crosses midnight: every label names its day, and no two are alike.
    const labels = page.getByTestId('usage-axis-label');
    const parts = await labels.evaluateAll((elements) =>
      elements.map((element) => [...element.querySelectorAll('tspan')].map((span) => span.textContent ?? '')),
    );
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const [time, date] of parts) {
      expect(time).toMatch(/\d/);
      expect(date ?? '').toMatch(/\S/);
    }
    const whole = parts.map((part) => part.join(' '));
    expect(new Set(whole).size).toBe(whole.length);
    expect(new Set(parts.map((part) => part[1])).size).toBeGreaterThanOrEqual(2);
    for (const label of await labels.all()) expect(await inViewport(label)).toBe(true);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(1);
    await screenshot(page, 'usage-phone');

    // And the plural once there is more than one.
    await t.request(key, { method: 'GET', url: '/api/v1/prompts' });
    await t.container.usage.flush();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await totalLine.filter({ hasText: '2 requests' }).waitFor();
  });

  it('gives every column of the versions table a header, and scrolls the table visibly where it does not fit', async () => {
    const created = await t.request(key, {
      method: 'POST',
      url: '/api/v1/artifacts',
      payload: {
        project: 'acme/design-system',
        slug: 'tokens',
        title: 'Design tokens',
        content: '{"color": "blue"}',
        content_type: 'application/vnd.acme.design-tokens+json',
      },
    });
    expect(created.statusCode).toBe(201);
    const updated = await t.request(key, {
      method: 'PUT',
      url: '/api/v1/artifacts/acme%2Fdesign-system/tokens',
      payload: { content: '{"color": "teal"}' },
    });
    expect(updated.statusCode).toBe(200);

    await go('nav-artifacts');
    await page.getByTestId('artifact-link').filter({ hasText: 'Design tokens' }).click();
    const table = page.getByTestId('artifact-versions');
    await table.waitFor();
    expect(await page.getByTestId('artifact-version-row').count()).toBe(2);

    // Every column has a header a sighted person can read (none only for screen readers).
    const headers = table.locator('thead th');
    const texts = (await headers.allInnerTexts()).map((text) => text.trim());
    expect(texts.length).toBe(5);
    for (const text of texts) expect(text).not.toBe('');
    expect(await table.locator('thead .visually-hidden').count()).toBe(0);
    for (const row of await page.getByTestId('artifact-version-row').all()) {
      expect(await row.locator('td, th').count()).toBe(texts.length);
    }

    // Each header is either in the window or inside a box that scrolls sideways and shows that it does.
    const scroller = page.getByTestId('table-scroll').filter({ has: table });
    const box = await scroller.evaluate((element) => ({
      scrollWidth: element.scrollWidth,
      clientWidth: element.clientWidth,
      overflowX: element.ownerDocument.defaultView?.getComputedStyle(element).overflowX,
    }));
    const hidden: number[] = [];
    for (let index = 0; index < texts.length; index++) {
      if (!(await inViewport(headers.nth(index)))) hidden.push(index);
    }
    if (hidden.length > 0) {
      expect(box.scrollWidth).toBeGreaterThan(box.clientWidth);
      expect(box.overflowX).toBe('auto');
      // The scrolling is announced (hint, region label) and reachable from the keyboard (it takes the focus).
      expect(await page.getByTestId('table-scroll-hint').filter({ visible: true }).count()).toBe(1);
      expect(await scroller.getAttribute('role')).toBe('region');
      expect(await scroller.getAttribute('aria-label')).toBe('Versions');
      expect(await scroller.getAttribute('tabindex')).toBe('0');
      // Scrolled to the end, the last columns come into view.
      await scroller.evaluate((element) => {
        element.scrollLeft = element.scrollWidth;
      });
      expect(await inViewport(headers.last())).toBe(true);
      await scroller.evaluate((element) => {
        element.scrollLeft = 0;
      });
    }
    // The table scrolls inside its box; the page itself never does.
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(1);
    await screenshot(page, 'artifact-phone');
  });

  it('clears a success message when the next action starts, on Dismiss, and after a few seconds', async () => {
    await t.key(EMAIL, ['cli']);
    await t.key(EMAIL, ['cli']);
    await go('nav-keys');
    const notice = page.getByTestId('notice');
    const active = () => page.getByTestId('key-row').filter({ has: page.getByTestId('key-revoke') });
    const revokeOne = async () => {
      await active().first().getByTestId('key-revoke').click();
      await page.getByTestId('confirm-ok').click();
      await notice.filter({ hasText: 'was revoked' }).waitFor();
    };

    // The next action (here: asking to delete a key) takes the old message away at once.
    await revokeOne();
    await page.getByTestId('key-row').first().getByTestId('key-delete').click();
    await page.getByTestId('confirm-dialog').waitFor();
    expect(await notice.count()).toBe(0);
    await page.getByTestId('confirm-cancel').click();

    // Dismiss takes it away too.
    await revokeOne();
    await page.getByTestId('notice-dismiss').click();
    expect(await notice.count()).toBe(0);

    // Left alone, it goes by itself after a few seconds (waited for, not slept on).
    await revokeOne();
    await notice.waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('shows the whole menu without a button on wider screens, wrapping rather than cutting entries off', async () => {
    for (const width of [720, 899]) {
      await page.setViewportSize({ width, height: HEIGHT });
      expect(await toggle().isVisible()).toBe(false);
      for (const entry of MENU) {
        const box = await page.getByTestId(entry).boundingBox();
        expect(box, `${entry} at ${width}px`).not.toBeNull();
        if (box) expect(box.x + box.width, `${entry} at ${width}px`).toBeLessThanOrEqual(width);
      }
      expect(await page.getByTestId('logout').isVisible()).toBe(true);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(1);
    }
    await page.setViewportSize({ width: WIDTH, height: HEIGHT });
  });
});
