import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core, for the dashboard's browser tests. Screenshots go to
 * test-results/screenshots/ on every run and, with UPDATE_SCREENSHOTS=1, to docs/screenshots/ (the README
 * shows those).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));
const COMMITTED = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable) {
  console.info(`[cairn tests] browser tests skipped: no Chromium at ${CHROMIUM} (.ci/run installs it).`);
}

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });

/** A full-page screenshot named `name` (see above for where it goes). */
export async function screenshot(page: Page, name: string): Promise<void> {
  // From the top: scrolled, the sticky header would be drawn across the middle of a full-page image.
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  const image = await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
  if (process.env.UPDATE_SCREENSHOTS === '1') writeFileSync(`${COMMITTED}${name}.png`, image);
}

/** How far the page is wider than the window, in CSS pixels (0: no horizontal scrolling). */
export const horizontalOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const w = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
    return w.document.documentElement.scrollWidth - w.innerWidth;
  });
