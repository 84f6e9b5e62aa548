/**
 * The outbox and intent storage when the browser's storage fails, in real Chromium
 * against the chat demo's real server: site data blocked by the user (IndexedDB and
 * `localStorage` refused), the site's data cleared while an answer streams (DevTools'
 * "Clear site data": the page's IndexedDB connection closes), one message queued
 * offline in one tab that another tab sent meanwhile, and one that another tab gave up
 * on. No online send ever fails for it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { answerText, ask, footerModelCalls, onlyCallSince, UI_TIMEOUT_MS } from '../support/chat-page.js';
import { chromiumAvailable, launchWithSiteDataBlocked } from '../support/chromium.js';
import { startDemoProcess } from '../support/demo-process.js';
import { harness, openHarness, serveHarness } from '../support/tabs-harness.js';

const MODEL_DELAY_MS = 2000;

/** The demo is ready: its footer shows the server's counters. */
const ready = (page: Page) =>
  expect.poll(() => page.getByTestId('model-calls').textContent(), { timeout: UI_TIMEOUT_MS }).not.toBe('–');

describe.skipIf(!chromiumAvailable())('chat demo when storage fails (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startDemoProcess({ modelDelayMs: MODEL_DELAY_MS }),
    trackPosts: () => undefined,
  });

  it('site data blocked (IndexedDB and localStorage refused): messages sent online are answered, one model call each, and the page is told once per store', async () => {
    const { demo } = chat;
    const blocked = await launchWithSiteDataBlocked();
    try {
      const page = await blocked.context.newPage();
      const warnings: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'warning' && message.text().startsWith('answer-once:')) warnings.push(message.text());
      });
      await serveHarness(blocked.context, demo.url);
      await openHarness(page, demo.url);
      const refused = () =>
        new Promise<string>((resolve) => {
          const request = indexedDB.open('probe');
          request.onsuccess = () => resolve('opened');
          request.onerror = () => resolve(request.error!.name);
        });
      expect(await page.evaluate(refused)).toBe('UnknownError');
      for (const [index, question] of ['First, with no storage', 'Second, with no storage'].entries()) {
        const before = await demo.stats();
        await harness(page, 'ask', question, `01JE2ENOSTORE${index}${Date.now()}`.padEnd(26, '0'));
        await expect.poll(async () => (await harness(page, 'shown')).done, { timeout: UI_TIMEOUT_MS }).toBe(true);
        const call = await onlyCallSince(demo, before.modelCalls);
        expect((await harness(page, 'shown')).text).toBe(call.text);
      }
      expect(warnings).toHaveLength(2);
      expect(warnings.some((text) => text.startsWith('answer-once: the outbox is unavailable'))).toBe(true);
      expect(warnings.some((text) => text.startsWith('answer-once: the intent storage is unavailable'))).toBe(true);
    } finally {
      await blocked.close();
    }
  });

  it('the site’s data cleared mid-answer: that answer ends, and the next message is answered — one model call each', async () => {
    const { demo, page } = chat;
    await page.goto(demo.url);
    await ready(page);
    const before = await demo.stats();
    await ask(page, 'Before the clear');
    await page.getByTestId('streaming-text').waitFor({ timeout: UI_TIMEOUT_MS });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(demo.url).origin, storageTypes: 'all' });
    await page.getByTestId('answer').first().waitFor({ timeout: UI_TIMEOUT_MS });

    await ask(page, 'After the clear');
    await expect.poll(() => page.getByTestId('answer').count(), { timeout: UI_TIMEOUT_MS }).toBe(2);
    expect(await page.getByTestId('error').count()).toBe(0);
    const second = await onlyCallSince(demo, before.modelCalls + 1);
    expect(await answerText(page, 1)).toBe(second.text);
    expect(await footerModelCalls(page, demo)).toBe(before.modelCalls + 2);
  });

  it('two tabs holding the same queued message when the network returns: both end with the answer, one model call', async () => {
    const { demo, context, page } = chat;
    await serveHarness(context, demo.url);
    const other = await context.newPage();
    for (const tab of [page, other]) await openHarness(tab, demo.url);
    const before = await demo.stats();
    await context.setOffline(true);
    const id = `01JE2EQUEUED${Date.now()}`.padEnd(26, '0');
    await harness(page, 'send', 'Queued in two tabs', id);
    await expect.poll(() => harness(page, 'queued'), { timeout: UI_TIMEOUT_MS }).toEqual([id]);
    // The other tab resumes it (as a reload does): it waits in its outbox too.
    await harness(other, 'resumeAll');

    await context.setOffline(false);
    for (const tab of [page, other])
      await expect.poll(async () => (await harness(tab, 'shown')).done, { timeout: UI_TIMEOUT_MS }).toBe(true);
    const call = await onlyCallSince(demo, before.modelCalls);
    for (const tab of [page, other]) expect((await harness(tab, 'shown')).text).toBe(call.text);
    expect(await harness(page, 'queued')).toEqual([]);
  });

  it('a tab that gives up on a message another tab queued leaves it to that tab: closed before the network returned, the chat reopened online answers it, one model call', async () => {
    const { demo, context } = chat;
    await serveHarness(context, demo.url);
    const made = await context.newPage();
    const other = await context.newPage();
    for (const tab of [made, other]) await openHarness(tab, demo.url);
    const before = await demo.stats();
    await context.setOffline(true);
    const id = `01JE2EKEPT${Date.now()}`.padEnd(26, '0');
    await harness(made, 'send', 'Still wanted', id);
    await expect.poll(() => harness(made, 'queued'), { timeout: UI_TIMEOUT_MS }).toEqual([id]);
    // The other tab resumes it, waits for the network with it, then gives up on it.
    await harness(other, 'resumeAll');
    await expect.poll(() => harness(other, 'resumedQueued'), { timeout: UI_TIMEOUT_MS }).toBe(true);
    await harness(other, 'abort');
    await expect.poll(async () => (await harness(other, 'shown')).error, { timeout: UI_TIMEOUT_MS }).toBe('AbortError');

    await made.close();
    await context.setOffline(false);
    const reopened = await context.newPage();
    await openHarness(reopened, demo.url);
    await harness(reopened, 'resumeAll');
    await expect.poll(async () => (await harness(reopened, 'shown')).done, { timeout: UI_TIMEOUT_MS }).toBe(true);
    const call = await onlyCallSince(demo, before.modelCalls);
    expect((await harness(reopened, 'shown')).text).toBe(call.text);
    expect(await harness(reopened, 'queued')).toEqual([]);
  });
});
