/**
 * The AI SDK demo (`useChat` + `answerOnceTransport`, the client with `shareTabs()`) in
 * several tabs of one browser profile (one context: one origin's localStorage, Web Locks
 * and BroadcastChannel), in real Chromium against the real demo server: tabs resuming one
 * pending answer share one stream; when the tab reading it closes, another carries on
 * from its last event. Texts are compared with what the demo's model writes
 * (`answerTokens`); stream requests are counted in the browser, model calls by the server.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { answerTokens } from '../../examples/ai-sdk-chat/model.js';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startAiSdkDemoProcess } from '../support/demo-process.js';
import { type StreamRequest, trackStreams } from '../support/stream-requests.js';

/** ~45 tokens at this pace: about 5 s per answer, time to reload or close a tab mid-answer. */
const TOKEN_DELAY_MS = 110;
const UI_TIMEOUT_MS = 20_000;

async function ask(on: Page, question: string): Promise<void> {
  await on.getByTestId('composer').fill(question);
  await on.getByTestId('send').click();
}

const answerText = async (on: Page) =>
  (await on
    .getByTestId('answer')
    .last()
    .textContent({ timeout: 200 })
    .catch(() => '')) ?? '';

/** Waits until the answer on `on` shows at least `chars` characters; returns it. */
async function streamed(on: Page, chars: number): Promise<string> {
  await expect.poll(async () => (await answerText(on)).length, { timeout: UI_TIMEOUT_MS }).toBeGreaterThanOrEqual(chars);
  return answerText(on);
}

const settled = (on: Page) => on.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });

describe.skipIf(!chromiumAvailable())('ai-sdk demo in many tabs (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startAiSdkDemoProcess({ tokenDelayMs: TOKEN_DELAY_MS }),
    trackPosts: () => undefined,
    openDemo: true,
    screenshotPrefix: 'ai-sdk-',
  });

  it('three tabs reloading onto one pending answer: one stream request, one model call, the same text in all three', async () => {
    const { demo, context, page } = chat;
    await settled(page);
    const before = await demo.stats();
    const question = 'Three tabs, one stream?';
    await ask(page, question);
    await streamed(page, 40);
    const others = [await context.newPage(), await context.newPage()];
    for (const other of others) await other.goto(demo.url);
    const tabs = [page, ...others];
    // Every tab shows the live answer (two of them following the first).
    for (const tab of tabs) await streamed(tab, 60);

    const streams: StreamRequest[] = [];
    for (const tab of tabs) trackStreams(tab, streams);
    await Promise.all(tabs.map((tab) => tab.reload()));

    const full = answerTokens(before.modelCalls + 1, question).join('');
    for (const tab of tabs) {
      await expect.poll(() => answerText(tab), { timeout: UI_TIMEOUT_MS }).toBe(full);
      await settled(tab);
      expect(await tab.getByTestId('answer').count()).toBe(1);
    }
    // After the reloads, one tab read the answer for all three.
    expect(streams).toHaveLength(1);
    expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 1);
  });

  it('the tab reading the answer closed mid-answer: another carries on within 1 s from its last event, no word twice', async () => {
    const { demo, context, page } = chat;
    await settled(page);
    const before = await demo.stats();
    const question = 'What if I close the first tab?';
    await ask(page, question);
    await streamed(page, 40);
    const other = await context.newPage();
    const streams: StreamRequest[] = [];
    trackStreams(other, streams);
    await other.goto(demo.url);
    const shown = await streamed(other, 70);
    expect(streams).toHaveLength(0); // it follows the first tab's stream

    const closedAt = Date.now();
    await page.close();
    // It takes over from where it was (PROTOCOL.md § 14.5), not from the start.
    await expect.poll(() => streams.length, { timeout: 5_000 }).toBe(1);
    expect(streams[0]!.at - closedAt).toBeLessThan(1_000);
    expect(streams[0]!.lastEventId).toMatch(/^\S+$/);
    const full = answerTokens(before.modelCalls + 1, question).join('');
    expect(full.startsWith(shown)).toBe(true);

    // No word twice, none missing: every text the tab shows is a prefix of the model's.
    const seen: string[] = [];
    await expect
      .poll(
        async () => {
          const text = await answerText(other);
          seen.push(text);
          return text;
        },
        { timeout: UI_TIMEOUT_MS, interval: 50 },
      )
      .toBe(full);
    for (const text of seen) expect(full.startsWith(text), text).toBe(true);
    await settled(other);
    expect(await other.getByTestId('answer').count()).toBe(1);
    expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 1);
  });
});
