import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, horizontalOverflow, launchBrowser, screenshot } from '../helpers/browser.js';
import type { Json } from '../helpers/json.js';

/**
 * The prompt lifecycle in the dashboard (issue 8): versions with commit messages, history and diffs,
 * restore, the variable schema, the render preview, "referenced by", and a save refused with 412.
 * Outcomes are checked in the page and through the dashboard API.
 */
const V1 = 'Review this {{language}} code.\nBe {{tone}}.\nEnd.';
const V2 = 'Review this {{language}} code carefully.\nBe {{tone}}.\nCheck the tests.\nEnd.';
const V3 = 'Review this {{language}} code line by line.\nBe {{tone}}.\nCheck the tests.\nEnd.';
const XSS = '<img src=x onerror=alert(1)> careful';

interface Answer {
  status: number;
  body: Json;
}

describe.runIf(browserAvailable)('prompt lifecycle in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
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

  /** The dashboard API with the page's session: what another tab (or the server) sees. */
  const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
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

  const open = async (hash: string) => {
    await page.goto(`${base}/#/${hash}`);
  };
  const byVariable = (testId: string, name: string) =>
    page.locator(`[data-testid="${testId}"][data-variable="${name}"]`);

  it('signs up', async () => {
    await page.goto(base);
    await page.getByTestId('signup-email').fill('lifecycle@example.com');
    await page.getByTestId('signup-password').fill('correct horse battery staple');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('nav-prompts').waitFor();
  });

  it('creates a prompt with variables and edits it twice with commit messages', async () => {
    await page.getByTestId('prompt-new').click();
    await page.getByTestId('prompt-title').fill('Code review');
    await page.getByTestId('prompt-slug').fill('code-review');
    await page.getByTestId('prompt-content').fill(V1);
    await byVariable('schema-variable', 'language').waitFor();
    await page.getByTestId('prompt-commit-message').fill('First draft');
    await page.getByTestId('prompt-save').click();
    await page.getByTestId('prompt-row').filter({ hasText: 'Code review' }).waitFor();

    await open('prompts/code-review/edit');
    await page.getByTestId('prompt-version').filter({ hasText: 'version 1' }).waitFor();
    await page.getByTestId('prompt-content').fill(V2);
    await page.getByTestId('prompt-commit-message').fill(XSS);
    await page.getByTestId('prompt-save').click();
    await page.getByTestId('notice').filter({ hasText: 'version 2' }).waitFor();
    await page.getByTestId('prompt-version').filter({ hasText: 'version 2' }).waitFor();
    // The form starts again from the saved version: the commit message is cleared.
    expect(await page.getByTestId('prompt-commit-message').inputValue()).toBe('');

    await page.getByTestId('prompt-title').fill('Careful code review');
    await page.getByTestId('prompt-content').fill(V3);
    await page.getByTestId('prompt-commit-message').fill('Line by line');
    await page.getByTestId('prompt-save').click();
    await page.getByTestId('prompt-version').filter({ hasText: 'version 3' }).waitFor();

    const versions = await call('GET', '/prompts/code-review/versions');
    expect(versions.body.total).toBe(3);
    expect(versions.body.versions.map((v: { commit_message: string | null }) => v.commit_message)).toEqual([
      'Line by line',
      XSS,
      'First draft',
    ]);
    const current = await call('GET', '/prompts/code-review');
    expect(current.body).toMatchObject({ version: 3, title: 'Careful code review', content: V3 });
  });

  it('shows the history and the diff of any two versions', async () => {
    await page.getByTestId('prompt-tab-history').click();
    await expect.poll(() => page.getByTestId('history-row').count()).toBe(3);
    const rows = page.getByTestId('history-row');
    expect(await rows.first().getAttribute('data-version')).toBe('3');
    expect(await rows.nth(1).getByTestId('history-message').textContent()).toBe(XSS); // text, not HTML
    expect(await rows.first().getByTestId('history-restore').count()).toBe(0); // the current one

    await page.getByTestId('history-from').selectOption('1');
    await page.getByTestId('history-to').selectOption('3');
    await page.waitForURL(/from=1&to=3/);
    const removed = page.locator('[data-testid="diff-line"][data-kind="removed"]');
    const added = page.locator('[data-testid="diff-line"][data-kind="added"]');
    await removed.first().waitFor();
    expect(await removed.allTextContents()).toEqual(['−Removed: Review this {{language}} code.']);
    expect(await added.allTextContents()).toEqual([
      '+Added: Review this {{language}} code line by line.',
      '+Added: Check the tests.',
    ]);
    const title = page.locator('[data-testid="diff-field"][data-field="title"]');
    expect(await title.locator('del').textContent()).toBe('Before: Code review');
    expect(await title.locator('ins').textContent()).toBe('After: Careful code review');
    await screenshot(page, 'prompt-history');

    // "Changes in this version" picks the previous and that version.
    await page.locator('[data-testid="history-row"][data-version="2"]').getByTestId('history-changes').click();
    await page.waitForURL(/from=1&to=2/);
    await page.locator('[data-testid="diff-line"][data-kind="added"]').filter({ hasText: 'code carefully.' }).waitFor();
  });

  it('restores version 1 as a new version, with a commit message', async () => {
    await page.locator('[data-testid="history-row"][data-version="1"]').getByTestId('history-restore').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await page.getByTestId('restore-message').fill('Back to basics');
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('prompt-version').filter({ hasText: 'version 4' }).waitFor();
    await page.getByTestId('notice').filter({ hasText: 'restored as version 4' }).waitFor();
    expect(await page.getByTestId('prompt-content').inputValue()).toBe(V1);
    expect(await page.getByTestId('prompt-title').inputValue()).toBe('Code review');

    const current = await call('GET', '/prompts/code-review');
    expect(current.body).toMatchObject({ version: 4, content: V1, title: 'Code review' });
    const versions = await call('GET', '/prompts/code-review/versions');
    expect(versions.body.versions[0]).toMatchObject({ version: 4, commit_message: 'Back to basics' });
  });

  it('edits the variable schema of the content’s variables', async () => {
    const tone = byVariable('schema-variable', 'tone');
    // The server's validation message appears next to the field it is about.
    await tone.getByTestId('schema-enum').fill('x'.repeat(201));
    await page.getByTestId('prompt-save').click();
    await tone.getByTestId('schema-error').waitFor();
    expect(await tone.getByTestId('schema-error').textContent()).toBe('Each value must be at most 200 characters');
    expect(await tone.getByTestId('schema-enum').getAttribute('aria-invalid')).toBe('true');
    expect((await call('GET', '/prompts/code-review')).body.version).toBe(4);

    await tone.getByTestId('schema-description').fill('How to phrase the review');
    await tone.getByTestId('schema-enum').fill('gentle\nblunt\n');
    await tone.getByTestId('schema-default').selectOption('gentle');
    const language = byVariable('schema-variable', 'language');
    await language.getByTestId('schema-description').fill('The programming language');
    // A variable no longer in the content is not sent (the server would refuse it).
    await page.getByTestId('prompt-content').fill(`${V1}\n{{temporary}}`);
    await byVariable('schema-variable', 'temporary').getByTestId('schema-description').fill('Gone soon');
    await page.getByTestId('prompt-content').fill(V1);
    await expect.poll(() => byVariable('schema-variable', 'temporary').count()).toBe(0);
    await page.getByTestId('prompt-commit-message').fill('Describe the variables');
    await page.getByTestId('prompt-save').click();
    await page.getByTestId('prompt-version').filter({ hasText: 'version 5' }).waitFor();

    const current = await call('GET', '/prompts/code-review');
    expect(current.body.variable_schema).toEqual({
      language: { description: 'The programming language' },
      tone: { description: 'How to phrase the review', default: 'gentle', enum: ['gentle', 'blunt'] },
    });
    // The reloaded form shows what was saved.
    expect(await byVariable('schema-variable', 'tone').getByTestId('schema-default').inputValue()).toBe('gentle');
    await screenshot(page, 'prompt-schema');
  });

  it('renders through a form built from the schema', async () => {
    await page.getByTestId('prompt-tab-render').click();
    const tone = byVariable('render-variable', 'tone');
    await tone.waitFor();
    expect(await tone.evaluate((element) => element.tagName)).toBe('SELECT');
    expect(await tone.locator('option').allTextContents()).toEqual(['(no value)', 'gentle', 'blunt']);
    expect(await tone.inputValue()).toBe('gentle'); // the default, prefilled
    await page.getByText('How to phrase the review').first().waitFor(); // the description as help

    await byVariable('render-variable', 'language').fill('TypeScript');
    await page.getByTestId('render-submit').click();
    const output = page.getByTestId('render-output');
    await output.filter({ hasText: 'TypeScript' }).waitFor();
    expect(await output.textContent()).toBe('Review this TypeScript code.\nBe gentle.\nEnd.');

    await tone.selectOption('blunt');
    await page.getByTestId('render-submit').click();
    await output.filter({ hasText: 'Be blunt.' }).waitFor();
  });

  it('shows the server’s refusal of a strict render with a missing variable, and renders when not strict', async () => {
    await byVariable('render-variable', 'language').fill('');
    await page.getByTestId('render-submit').click();
    const error = page.getByTestId('error');
    await error.waitFor();
    expect(await error.textContent()).toContain('missing language');
    expect(await page.getByTestId('render-field-error').textContent()).toBe('Required variable without a value');
    expect(await byVariable('render-variable', 'language').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('render-output').count()).toBe(0);

    await page.getByTestId('render-strict').uncheck();
    await page.getByTestId('render-submit').click();
    await page.getByTestId('render-output').waitFor();
    expect(await page.getByTestId('render-output').textContent()).toBe(
      'Review this {{language}} code.\nBe blunt.\nEnd.',
    );
    expect(await page.getByTestId('render-missing').textContent()).toBe('language');
    await screenshot(page, 'prompt-render');
  });

  it('lists the prompts that reference this one, and marks broken references', async () => {
    const created = await call('POST', '/prompts', {
      title: 'Wrapper',
      slug: 'wrapper',
      content: 'Intro for {{team}}.\n@code-review\n@no-such-prompt',
    });
    expect(created.status).toBe(201);
    await open('prompts/code-review/edit');
    const link = page.getByTestId('prompt-referenced-by-link');
    await link.waitFor();
    expect(await link.allTextContents()).toEqual(['@wrapper']);
    await link.click();
    await page.waitForURL(/#\/prompts\/wrapper\/edit$/);

    // The server's broken_references mark the saved content's references.
    const broken = page.locator('[data-testid="prompt-reference"][data-broken="true"]');
    await broken.waitFor();
    expect(await broken.allTextContents()).toEqual(['@no-such-prompt (no such prompt)']);
    expect(await page.locator('[data-testid="prompt-reference"][data-broken="false"]').allTextContents()).toEqual([
      '@code-review',
    ]);
    await page.getByTestId('prompt-broken-warning').waitFor();
    await page.getByTestId('prompt-referenced-by-none').waitFor();

    // Rendering it asks for the included prompt's variables too, and names the missing prompt.
    await page.getByTestId('prompt-tab-render').click();
    await page.locator('[data-testid="prompt-reference"][data-broken="true"]').waitFor();
    await byVariable('render-variable', 'language').waitFor();
    expect(await byVariable('render-variable', 'tone').inputValue()).toBe('gentle');
    await page.getByTestId('render-submit').click();
    expect(await page.getByTestId('error').textContent()).toContain('@wrapper → @no-such-prompt');
  });

  it('shows a reference cycle as the chain the server names', async () => {
    await call('POST', '/prompts', { title: 'Loop A', slug: 'loop-a', content: 'A then @loop-b' });
    await call('POST', '/prompts', { title: 'Loop B', slug: 'loop-b', content: 'B then @loop-a' });
    await open('prompts/loop-a/render');
    await page.getByTestId('render-submit').click();
    expect(await page.getByTestId('error').textContent()).toContain(
      'References form a cycle: @loop-a → @loop-b → @loop-a',
    );
    // Without resolving references, the text renders as written.
    await page.getByTestId('render-resolve').uncheck();
    await page.getByTestId('render-submit').click();
    expect(await page.getByTestId('render-output').textContent()).toBe('A then @loop-b');
  });

  it('refuses to overwrite a change made elsewhere (412) and offers to reload', async () => {
    await open('prompts/code-review/edit');
    await page.getByTestId('prompt-version').filter({ hasText: 'version 5' }).waitFor();
    await page.getByTestId('prompt-title').fill('My local title');

    // Behind the editor's back:
    const elsewhere = await call('PUT', '/prompts/code-review', {
      content: `${V1}\nChanged elsewhere.`,
      commit_message: 'Other tab',
    });
    expect(elsewhere.body.version).toBe(6);

    await page.getByTestId('prompt-save').click();
    const conflict = page.getByTestId('prompt-conflict');
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain('changed elsewhere');
    expect(await page.getByTestId('prompt-title').inputValue()).toBe('My local title'); // edits kept
    const current = await call('GET', '/prompts/code-review');
    expect(current.body).toMatchObject({ version: 6, title: 'Code review', content: `${V1}\nChanged elsewhere.` });

    await page.getByTestId('prompt-conflict-reload').click();
    await page.getByTestId('prompt-version').filter({ hasText: 'version 6' }).waitFor();
    expect(await page.getByTestId('prompt-content').inputValue()).toBe(`${V1}\nChanged elsewhere.`);
    expect(await page.getByTestId('prompt-title').inputValue()).toBe('Code review');
    expect(await page.getByTestId('prompt-conflict').count()).toBe(0);
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const hash of [
      'prompts/code-review/edit',
      'prompts/code-review/history?from=1&to=6',
      'prompts/code-review/render',
    ]) {
      await open(hash);
      await page.getByTestId('prompt-tab-edit').waitFor();
      if (hash.includes('history')) await page.getByTestId('diff-line').first().waitFor();
      if (hash.includes('render')) await page.getByTestId('render-form').waitFor();
      if (hash.endsWith('edit')) await page.getByTestId('schema-editor').waitFor();
      expect(await horizontalOverflow(page), hash).toBeLessThanOrEqual(1);
    }
    await screenshot(page, 'prompt-render-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(dialogs).toEqual([]);
  });
});
