import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, horizontalOverflow, launchBrowser, screenshot } from '../helpers/browser.js';
import { Receiver } from '../helpers/webhook-receiver.js';

/**
 * Settings → Webhooks in Chromium against a real receiver: add an endpoint (secret shown once), send a test
 * event and see it in the delivery log, then watch the endpoint be disabled after failures and re-enable it
 * from the notice. The worker runs for real; retries are immediate by setting, and every wait is a condition.
 */
describe.runIf(browserAvailable)('webhooks page in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await createTestApp('sqlite', {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_RETRY_BASE_MS: '0',
      WEBHOOK_DISABLE_AFTER_FAILURES: '2',
    });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('adds a webhook, shows its secret once, and delivers a signed test event into the log', async () => {
    await page.goto(base);
    await page.getByTestId('signup-email').fill('hooks@example.com');
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('nav-webhooks').click();
    await page.getByTestId('webhook-url').fill(receiver.url);
    await page.getByTestId('webhook-create').click();
    await page.getByRole('alert').filter({ hasText: 'Choose at least one event' }).waitFor();
    await page.getByTestId('webhook-event-memory.created').check();
    await page.getByTestId('webhook-create').click();
    const secret = (await page.getByTestId('webhook-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    await screenshot(page, 'webhooks');
    await page.getByTestId('webhook-secret-done').click();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await page.getByTestId('webhook-events').textContent()).toBe('memory.created');

    await page.getByTestId('webhook-test').click();
    await receiver.until(() => receiver.received.length === 1);
    const got = receiver.received[0];
    if (!got) throw new Error('nothing received');
    const fields = Object.fromEntries(
      String(got.headers['cairn-signature'])
        .split(',')
        .map((part) => part.split('=') as [string, string]),
    );
    expect(createHmac('sha256', secret).update(`${fields.t}.${got.body}`).digest('hex')).toBe(fields.v1);
    expect(JSON.parse(got.body).type).toBe('webhook.test');

    // The log (opened by the test action) shows the attempt once it is recorded.
    await page.getByTestId('webhook-log').waitFor();
    // Generous bounds: a loaded CI machine may take seconds; the loop ends as soon as the attempt shows.
    for (let i = 0; (await page.getByTestId('webhook-attempt').count()) === 0; i++) {
      if (i > 600) throw new Error('the attempt never showed');
      await page.getByTestId('webhook-log-refresh').click();
      await page.waitForTimeout(50);
    }
    expect(await page.getByTestId('webhook-attempt-outcome').first().textContent()).toBe('succeeded');
    expect(await page.getByTestId('webhook-attempt-code').first().textContent()).toBe('200');
  });

  it('shows a notice when failures disable the endpoint, and re-enables it', async () => {
    receiver.respond = () => 500;
    await page.getByTestId('webhook-test').click();
    await receiver.until(() => receiver.received.length >= 3); // first try and one retry, both 500
    const id = (await page.getByTestId('webhook-row').getAttribute('data-webhook-id')) ?? '';
    for (let i = 0; !(await isDisabled(id)); i++) {
      if (i > 1500) throw new Error('never disabled');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The dashboard-wide notice, on any other page, leads to the webhooks page.
    await page.getByTestId('nav-prompts').click();
    await page.reload();
    const banner = page.getByTestId('webhooks-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/A webhook was disabled after repeated failed deliveries/);
    await banner.getByRole('link').click();
    const notice = page.getByTestId('webhook-disabled-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/after 2 consecutive failed deliveries \(last: HTTP 500\)/);
    expect(await page.getByTestId('webhook-status').textContent()).toBe('Disabled');
    expect(await horizontalOverflow(page)).toBe(0);
    receiver.respond = () => 200;
    await page.getByTestId('webhook-reenable').click();
    await page.getByTestId('webhook-status').filter({ hasText: 'Enabled' }).waitFor();
    expect(await page.getByTestId('webhook-disabled-notice').count()).toBe(0);
    // Leaving the webhooks page asks again: the notice is gone once the answer is in.
    const asked = page.waitForResponse((response) => response.url().endsWith('/dashboard/api/webhooks'));
    await page.getByTestId('nav-prompts').click();
    expect((await (await asked).json()).webhooks[0].enabled).toBe(true);
    await page.getByTestId('webhooks-banner').waitFor({ state: 'detached' });
    expect(await page.getByTestId('webhooks-banner').count()).toBe(0);
  });

  async function isDisabled(id: string): Promise<boolean> {
    const row = await t.container.database.db
      .selectFrom('webhook_endpoints')
      .select('enabled')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return !row.enabled;
  }
});
