import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInspectorHarness } from '../integrations/inspector/inspector-http.js';
import { chromiumPath, missing } from '../support/services.js';

// Debian's Chromium, never a downloaded browser (.ci/run installs the `chromium` package).
const withoutChromium = missing('chromium') !== undefined;
const chromiumArguments = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: BrowserContext;
let userDataDir: string;

beforeAll(async () => {
  if (withoutChromium) return;
  userDataDir = mkdtempSync(join(tmpdir(), 'mcp-context-chromium-'));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArguments,
    viewport: { width: 1180, height: 900 },
  });
});

afterAll(async () => {
  await browser?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

const checkoutTurn = {
  pipelineId: 'support',
  conversationId: 'c-42',
  message: {
    text: 'why does checkout fail?',
    attachments: [
      { server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/process/checkout' },
      { server: 'gitnexus', uri: 'gitnexus://repo/nonexistent/context' },
    ],
  },
};

describe.skipIf(withoutChromium)('the inspector page in Chromium', () => {
  it('loads against the fixture, shows a turn run from code live, and its context on click', async () => {
    const { listening, provider, attachments } = await startInspectorHarness({ content: true });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({
      scope: { conversationId: 'c-42' },
      server: 'gitnexus',
      template: 'gitnexus://repo/{name}/context',
      arguments: { name: 'acme-shop' },
    });
    await provider.provide({ pipelineId: 'support', turnId: 'warm-up' });
    const page = await browser.newPage();
    await page.goto(listening.url);
    await page.waitForSelector('body[data-live="true"]');

    await expect
      .poll(() => page.getByTestId('server').allTextContents())
      .toEqual([expect.stringMatching(/^gitnexusconnectedhttp2025-11-25(?:[a-z]+, )*resources/)]);
    expect(await page.locator('#pins h3').allTextContents()).toEqual([
      'conversation c-42',
      'pipeline support',
    ]);
    expect(await page.getByTestId('pin').count()).toBe(2);
    await expect.poll(() => page.getByTestId('turn').count()).toBe(1);

    const { trace, blocks } = await provider.provide({ ...checkoutTurn, turnId: 'turn-live' });
    const card = page.locator('[data-turn-id="turn-live"]');
    await card.waitFor();
    const rows = await card
      .getByTestId('entry')
      .evaluateAll((elements) =>
        elements.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
      );
    expect(rows).toEqual(
      trace.entries.map((entry) => [
        entry.scope,
        entry.server,
        entry.uri,
        entry.status,
        String(entry.tokens),
        String(entry.originalTokens),
        entry.cache,
        entry.change ?? '',
        entry.reason ?? (entry.error ? `${entry.error.code}: ${entry.error.message}` : ''),
      ]),
    );
    expect(rows.map((row) => row[3])).toEqual(['injected', 'error', 'injected', 'injected']);
    // Newest first.
    expect(await page.getByTestId('turn').first().getAttribute('data-turn-id')).toBe('turn-live');
    const width = await card.getByTestId('budget-used').evaluate((element) => element.style.width);
    expect(width).toBe(`${Math.round((trace.budget.usedTokens / trace.budget.maxTokens) * 100)}%`);

    const context = card.getByTestId('context');
    expect(await context.isHidden()).toBe(true);
    await card.locator('header').click();
    await expect.poll(() => context.textContent()).toBe(blocks.map((block) => block.text).join(''));

    if (process.env.INSPECTOR_SCREENSHOT) {
      await card.locator('header').click();
      await page.screenshot({ path: process.env.INSPECTOR_SCREENSHOT, fullPage: false });
    }
  });

  it('shows server-supplied text as text: markup in a URI or turn id never becomes elements', async () => {
    const { listening, provider } = await startInspectorHarness();
    const page = await browser.newPage();
    await page.goto(listening.url);
    await page.waitForSelector('body[data-live="true"]');
    const hostile = 'gitnexus://repo/<img/src=x/onerror=document.title=1>/context';
    await provider.provide({
      pipelineId: 'support',
      turnId: '<b id="injected">bold</b>',
      message: { attachments: [{ server: 'gitnexus', uri: hostile }] },
    });
    const card = page.getByTestId('turn').first();
    await card.waitFor();
    expect(await card.locator('code').first().textContent()).toBe(hostile);
    expect(await card.locator('header strong').textContent()).toBe('turn <b id="injected">bold</b>');
    expect(await page.locator('img, #injected').count()).toBe(0);
    expect(await page.title()).toBe('mcp-context inspector');
  });

  it('shows a server URL’s userinfo nowhere on the page: not in the servers table, not in a turn', async () => {
    const { listening, provider } = await startInspectorHarness(
      { content: true },
      { extraServers: { hidden: { type: 'http', url: 'http://page-user:s3cret-pass@127.0.0.1:9/mcp' } } },
    );
    const page = await browser.newPage();
    await page.goto(listening.url);
    await page.waitForSelector('body[data-live="true"]');
    await provider.provide({
      pipelineId: 'support',
      turnId: 'userinfo',
      message: { attachments: [{ server: 'hidden', uri: 'gitnexus://repos' }] },
    });
    const card = page.locator('[data-turn-id="userinfo"]');
    await card.waitFor();
    await card.locator('header').click();
    await expect.poll(() => card.getByTestId('context').textContent()).not.toBe('loading…');
    await expect
      .poll(() => page.getByTestId('server').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining('http://[redacted]@127.0.0.1:9/mcp')]));
    expect(await card.getByTestId('entry').textContent()).toContain('http://[redacted]@127.0.0.1:9/mcp');
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).not.toContain('s3cret-pass');
    expect(text).not.toContain('page-user');
  });

  it('filters pins and turn entries by URI', async () => {
    const { listening, provider, attachments } = await startInspectorHarness();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://setup' });
    await provider.provide({ pipelineId: 'support', turnId: 'one' });
    const page = await browser.newPage();
    await page.goto(listening.url);
    await expect.poll(() => page.getByTestId('entry').count()).toBe(2);
    // Read-only by default: no pin form, no unpin buttons.
    expect(await page.locator('#pin-form').isVisible()).toBe(false);
    expect(await page.getByTestId('unpin').count()).toBe(0);
    await page.getByTestId('search').fill('SETUP');
    expect(await page.getByTestId('pin').allTextContents()).toEqual(['gitnexusgitnexus://setup']);
    expect(await page.getByTestId('entry').locator('code').allTextContents()).toEqual(['gitnexus://setup']);
  });

  it('with pinning enabled, pins from the form and unpins with a button', async () => {
    const { listening, attachments } = await startInspectorHarness({ pinning: true });
    const page = await browser.newPage();
    await page.goto(listening.url);
    await page.waitForSelector('body[data-live="true"]');
    const form = page.locator('#pin-form');
    await form.locator('select[name=kind]').selectOption('conversation');
    await form.locator('input[name=scope]').fill('c-7');
    await form.locator('input[name=server]').fill('gitnexus');
    await form.locator('input[name=uri]').fill('gitnexus://setup');
    await form.locator('button').click();
    await expect.poll(() => page.getByTestId('pin').count()).toBe(1);
    expect(await attachments.list({ conversationId: 'c-7' })).toEqual([
      expect.objectContaining({ server: 'gitnexus', uri: 'gitnexus://setup' }),
    ]);
    await page.getByTestId('unpin').click();
    await expect.poll(() => page.getByTestId('pin').count()).toBe(0);
    expect(await attachments.list({ conversationId: 'c-7' })).toEqual([]);
  });

  it('says content viewing is off when the host has not enabled it', async () => {
    const { listening, provider } = await startInspectorHarness();
    await provider.provide({ ...checkoutTurn, turnId: 'private' });
    const page = await browser.newPage();
    await page.goto(listening.url);
    const card = page.locator('[data-turn-id="private"]');
    await card.locator('header').click();
    expect(await card.getByTestId('context').textContent()).toMatch(/^content viewing is off/);
  });

  it('is refused its data without the token, and given it with the token', async () => {
    const { listening, inspector } = await startInspectorHarness({
      token: 'browser-test-token-0123456789',
      loopbackWithoutToken: false,
    });
    const page = await browser.newPage();
    const refused = page.waitForResponse((response) => response.url().endsWith('/api/state'));
    await page.goto(listening.url);
    expect((await refused).status()).toBe(401);
    await expect.poll(() => page.locator('#message').textContent()).toBe('this inspector needs its token');
    expect(await page.getByTestId('server').count()).toBe(0);

    await page.goto(`${listening.url}?token=${inspector.token}`);
    await expect.poll(() => page.getByTestId('server').count()).toBe(1);
    await page.waitForSelector('body[data-live="true"]');
  });
});
