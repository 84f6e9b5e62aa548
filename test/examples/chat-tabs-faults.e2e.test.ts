/**
 * Tabs that misbehave, in real Chromium against the chat demo's real server: pages on
 * the demo's origin that drive the demo's client (localStorage, `shareTabs()`, the
 * IndexedDB outbox) through the library's own API (test/support/tabs-harness.ts), so a
 * spec can abort one tab's reader or stop one tab's page. Texts are compared with what
 * the model wrote (`/api/model-log`); stream requests are counted in the browser.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { onlyCallSince, UI_TIMEOUT_MS } from '../support/chat-page.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startDemoProcess } from '../support/demo-process.js';
import { type StreamRequest, trackStreams } from '../support/stream-requests.js';
import { harness, openHarness, serveHarness } from '../support/tabs-harness.js';

/** A quarter thinking, then ~30 tokens over ~6 s: time to act mid-answer. */
const MODEL_DELAY_MS = 8000;

/** Waits until `on` shows at least `chars` characters of its answer. */
async function shows(on: Page, chars: number): Promise<void> {
  await expect
    .poll(async () => (await harness(on, 'shown')).text.length, { timeout: UI_TIMEOUT_MS })
    .toBeGreaterThanOrEqual(chars);
}

describe.skipIf(!chromiumAvailable())('chat demo tabs that misbehave (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startDemoProcess({ modelDelayMs: MODEL_DELAY_MS }),
    trackPosts: () => undefined,
  });

  it('a follower tab that aborts leaves the stored intent to the reading tab: its reload mid-answer resumes it — the whole answer, one model call', async () => {
    const { demo, context, page } = chat;
    await serveHarness(context, demo.url);
    await openHarness(page, demo.url);
    const before = await demo.stats();
    const id = `01JE2EOWNER${Date.now()}`.padEnd(26, '0');
    await harness(page, 'ask', 'Who keeps the record?', id);
    await shows(page, 5);

    const follower = await context.newPage();
    await openHarness(follower, demo.url);
    expect(await harness(follower, 'resume')).toBe(id);
    await shows(follower, 10);
    await harness(follower, 'abort');
    await expect.poll(async () => (await harness(follower, 'shown')).error).toBe('AbortError');
    expect(await harness(page, 'pending')).toEqual([id]);

    // The reading tab reloads mid-answer: the new page resumes what storage holds.
    await openHarness(page, demo.url);
    expect(await harness(page, 'resume')).toBe(id);
    await expect.poll(async () => (await harness(page, 'shown')).done, { timeout: UI_TIMEOUT_MS }).toBe(true);
    const call = await onlyCallSince(demo, before.modelCalls);
    expect((await harness(page, 'shown')).text).toBe(call.text);
  });

  it('a reading tab whose page stops running with the lock held: a follower reads on itself after idleTimeout, from its last event — the whole answer, one model call', async () => {
    const { demo, context, page } = chat;
    const IDLE_MS = 2000;
    await serveHarness(context, demo.url);
    await openHarness(page, demo.url, IDLE_MS);
    const before = await demo.stats();
    const id = `01JE2EHUNG${Date.now()}`.padEnd(26, '0');
    await harness(page, 'ask', 'What if the first tab hangs?', id);
    await shows(page, 5);

    const follower = await context.newPage();
    const streams: StreamRequest[] = [];
    trackStreams(follower, streams);
    await openHarness(follower, demo.url, IDLE_MS);
    expect(await harness(follower, 'resume')).toBe(id);
    await shows(follower, 12);
    expect(streams).toHaveLength(0); // it follows the first tab's stream

    // The reading tab's page stops running (as a hung or frozen page does): it keeps its lock.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Debugger.enable');
    await cdp.send('Debugger.pause');
    const pausedAt = Date.now();
    await expect.poll(() => streams.length, { timeout: IDLE_MS + 5_000 }).toBe(1);
    expect(streams[0]!.at - pausedAt).toBeGreaterThanOrEqual(IDLE_MS - 500);
    expect(streams[0]!.lastEventId).toMatch(/^\d+\.[1-9]\d*$/);
    await expect.poll(async () => (await harness(follower, 'shown')).done, { timeout: UI_TIMEOUT_MS }).toBe(true);
    const call = await onlyCallSince(demo, before.modelCalls);
    expect((await harness(follower, 'shown')).text).toBe(call.text);
    await cdp.send('Debugger.resume');
  });

  it('a tab that joins while the reading tab closes follows the next reader: one stream request for the takeover, from its last event, the whole answer in both', async () => {
    const { demo, context, page } = chat;
    await serveHarness(context, demo.url);
    const [follower, joining] = [await context.newPage(), await context.newPage()];
    for (const tab of [page, follower, joining]) await openHarness(tab, demo.url);
    const before = await demo.stats();
    const id = `01JE2EJOIN${Date.now()}`.padEnd(26, '0');
    await harness(page, 'ask', 'Who reads after the first tab?', id);
    await shows(page, 5);
    expect(await harness(follower, 'resume')).toBe(id);
    await shows(follower, 10);

    const streams: StreamRequest[] = [];
    for (const tab of [follower, joining]) trackStreams(tab, streams);
    // The reading tab closes; a tab joins before the follower took its lock over.
    await page.close();
    expect(await harness(joining, 'resume')).toBe(id);
    for (const tab of [follower, joining])
      await expect.poll(async () => (await harness(tab, 'shown')).done, { timeout: UI_TIMEOUT_MS }).toBe(true);
    const call = await onlyCallSince(demo, before.modelCalls);
    for (const tab of [follower, joining]) expect((await harness(tab, 'shown')).text).toBe(call.text);
    expect(streams).toHaveLength(1);
    expect(streams[0]!.lastEventId).toMatch(/^\d+\.[1-9]\d*$/);
  });
});
