/**
 * The chat demo in several tabs of one browser profile (one context: one origin's
 * localStorage, Web Locks and BroadcastChannel), in real Chromium against the real demo
 * server: tabs reading one pending answer share one stream; when the tab reading it
 * closes, another carries on from its last event; a new tab shows the conversation.
 * Texts are compared with what the model wrote (`/api/model-log`); stream requests are
 * counted in the browser, model calls by the server.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { answerText, ask, footerModelCalls, onlyCallSince, UI_TIMEOUT_MS } from '../support/chat-page.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startDemoProcess } from '../support/demo-process.js';
import { type StreamRequest, trackStreams } from '../support/stream-requests.js';

/**
 * A quarter thinking, then ~30 tokens over ~6.75 s: long enough to open two more tabs and
 * act mid-stream on a loaded machine.
 */
const MODEL_DELAY_MS = 9000;

/** The text of the streaming bubble of `on` ('' when there is none). */
const liveText = async (on: Page) =>
  (await on
    .getByTestId('streaming-text')
    .textContent({ timeout: 200 })
    .catch(() => '')) ?? '';

async function streamed(on: Page, chars: number): Promise<string> {
  await expect.poll(async () => (await liveText(on)).length, { timeout: UI_TIMEOUT_MS }).toBeGreaterThanOrEqual(chars);
  return liveText(on);
}

describe.skipIf(!chromiumAvailable())('chat demo in many tabs (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startDemoProcess({ modelDelayMs: MODEL_DELAY_MS }),
    trackPosts: () => [] as StreamRequest[],
  });

  it('three tabs reloading onto one pending answer: one stream request, one model call, the same text in all three', async () => {
    const { demo, context, page } = chat;
    await page.goto(demo.url);
    const before = await demo.stats();
    await ask(page, 'Three tabs, one stream?');
    await streamed(page, 5);
    const others = [await context.newPage(), await context.newPage()];
    for (const other of others) await other.goto(demo.url);
    const tabs = [page, ...others];
    // Every tab shows the live answer (two of them following the first).
    for (const tab of tabs) await streamed(tab, 10);

    const streams: StreamRequest[] = [];
    for (const tab of tabs) trackStreams(tab, streams);
    await Promise.all(tabs.map((tab) => tab.reload()));
    for (const tab of tabs) await tab.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });

    const call = await onlyCallSince(demo, before.modelCalls);
    for (const tab of tabs) {
      expect(await answerText(tab)).toBe(call.text);
      expect(await tab.getByTestId('answer').count()).toBe(1);
    }
    // After the reloads, one tab read the answer for all three.
    expect(streams).toHaveLength(1);
    expect(await footerModelCalls(page, demo)).toBe(before.modelCalls + 1);
  });

  it('the tab reading the answer closed mid-answer: another carries on within 1 s from its last event, no word twice', async () => {
    const { demo, context, page } = chat;
    await page.goto(demo.url);
    const before = await demo.stats();
    await ask(page, 'What if I close the first tab?');
    await streamed(page, 5);
    const other = await context.newPage();
    const streams: StreamRequest[] = [];
    trackStreams(other, streams);
    await other.goto(demo.url);
    const shown = await streamed(other, 20);
    expect(streams).toHaveLength(0); // it follows the first tab's stream

    const closedAt = Date.now();
    await page.close();
    // It takes over from where it was (§ 14.5), not from the start.
    await expect.poll(() => streams.length, { timeout: 5_000 }).toBe(1);
    expect(streams[0]!.at - closedAt).toBeLessThan(1_000);
    expect(streams[0]!.lastEventId).toMatch(/^\d+\.[1-9]\d*$/);
    const longer = (await liveText(other)).length;
    expect(longer).toBeGreaterThanOrEqual(shown.length);

    await other.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
    const call = await onlyCallSince(demo, before.modelCalls);
    expect(await answerText(other)).toBe(call.text);
    expect(await footerModelCalls(other, demo)).toBe(before.modelCalls + 1);
  });

  it('a new tab shows the conversation so far and the live answer, over the first tab’s stream', async () => {
    const { demo, context, page } = chat;
    await page.goto(demo.url);
    await ask(page, 'First question');
    await page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
    await ask(page, 'Second question');
    await streamed(page, 5);

    const other = await context.newPage();
    const streams: StreamRequest[] = [];
    trackStreams(other, streams);
    await other.goto(demo.url);
    expect(await answerText(other, 0)).toBe(await answerText(page, 0));
    await streamed(other, 10);
    await other.getByTestId('answer').nth(1).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByTestId('answer').nth(1).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await answerText(other, 1)).toBe(await answerText(page, 1));
    expect(streams).toHaveLength(0);
  });
});
