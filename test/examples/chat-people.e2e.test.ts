/**
 * The chat demo as people use it, in real Chromium against the real demo server: a
 * human double-click (the second click lands on Stop, which took Send's place), Stop then
 * reload (exactly the text on screen at Stop, every round), a message typed while an
 * answer streams (queued, visibly), and a send made offline (a network condition, never
 * a chunk that cannot load). Judged by what the page shows, the model's log and the
 * server's counters.
 */
import { describe, expect, it } from 'vitest';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { answerText, modelLog, onlyCallSince, trackChatPosts, UI_TIMEOUT_MS } from '../support/chat-page.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startDemoProcess } from '../support/demo-process.js';
import { clickReading, humanDoubleClick, keptAtStop, trackMethod } from '../support/people.js';

/** A quarter thinking, then ~30 tokens: long enough to act mid-stream. */
const MODEL_DELAY_MS = 3000;
const ROUNDS = 10;

describe.skipIf(!chromiumAvailable())('chat demo as people use it (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startDemoProcess({ modelDelayMs: MODEL_DELAY_MS }),
    trackPosts: (_context, page) => trackChatPosts(page),
    openDemo: true,
    screenshotPrefix: 'chat-people-',
  });

  const answers = () => chat.page.getByTestId('answer');
  const streamingText = () => chat.page.getByTestId('streaming-text').textContent({ timeout: UI_TIMEOUT_MS });

  it.each([100, 200])(
    'answers a human double-click on Send (second click %d ms later, on Stop) once, whole and not stopped',
    async (gapMs) => {
      const { demo, page, context } = chat;
      const deletes = trackMethod(context, 'DELETE', '/api/status/');
      const before = await demo.stats();
      await page.getByTestId('composer').fill(`Double-click me (${gapMs} ms).`);
      await humanDoubleClick(page, page.getByTestId('send'), gapMs);
      await answers().first().waitFor({ timeout: UI_TIMEOUT_MS });
      const call = await onlyCallSince(demo, before.modelCalls);
      expect(call).toMatchObject({ done: true, stopped: false });
      expect(await answerText(page)).toBe(call.text);
      expect(await page.getByTestId('stopped-badge').count()).toBe(0);
      expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 1);
      expect(deletes).toHaveLength(0);
    },
  );

  it(`shows exactly the text on screen at Stop after a reload, ${ROUNDS} rounds out of ${ROUNDS}`, async () => {
    const { demo, page } = chat;
    const before = await demo.stats();
    for (let round = 1; round <= ROUNDS; round++) {
      await page.getByTestId('composer').fill(`Round ${round}: stop me.`);
      await page.getByTestId('send').click();
      // Mid-answer (past the stop guard: the model thinks 750 ms first).
      await expect
        .poll(async () => ((await streamingText().catch(() => '')) ?? '').split(' ').length, { timeout: UI_TIMEOUT_MS })
        .toBeGreaterThanOrEqual(4 + (round % 4));
      const atClick = await clickReading(page, '[data-testid="stop"]', '[data-testid="streaming-text"]');
      await expect.poll(() => answers().count(), { timeout: UI_TIMEOUT_MS }).toBe(round);
      const onScreen = keptAtStop(atClick, await answerText(page, round - 1));
      await answers()
        .nth(round - 1)
        .getByTestId('stopped-badge')
        .waitFor({ timeout: UI_TIMEOUT_MS });
      // The model hears the stop at its next word: its log says so a moment after the page does.
      await expect
        .poll(async () => (await onlyCallSince(demo, before.modelCalls + round - 1)).stopped, { timeout: UI_TIMEOUT_MS })
        .toBe(true);
      const call = await onlyCallSince(demo, before.modelCalls + round - 1);
      expect(call.text.startsWith(onScreen), 'the model wrote what was shown, and perhaps a word more').toBe(true);

      await page.reload();
      await expect.poll(() => answers().count(), { timeout: UI_TIMEOUT_MS }).toBe(round);
      await expect.poll(() => page.getByTestId('pending').count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
      expect(await answerText(page, round - 1), `round ${round}, after the reload`).toBe(onScreen);
    }
    expect((await demo.stats()).modelCalls).toBe(before.modelCalls + ROUNDS);
  });

  it('queues a message sent while an answer streams, visibly, and sends it when the answer ends', async () => {
    const { demo, page } = chat;
    const before = await demo.stats();
    await page.getByTestId('composer').fill('The first question.');
    await page.getByTestId('send').click();
    await expect
      .poll(async () => ((await streamingText().catch(() => '')) ?? '').length, { timeout: UI_TIMEOUT_MS })
      .toBeGreaterThan(10);
    await page.getByTestId('composer').fill('The second question, typed while it answers.');
    await page.getByTestId('composer').press('Enter');
    const queued = page.getByTestId('queued');
    await expect(queued.textContent()).resolves.toContain('The second question, typed while it answers.');
    await expect(queued.textContent()).resolves.toContain('queued');
    await expect.poll(() => answers().count(), { timeout: UI_TIMEOUT_MS }).toBe(2);
    expect(await queued.count()).toBe(0);
    const calls = (await modelLog(demo)).filter((call) => call.call > before.modelCalls);
    expect(calls.map((call) => call.text)).toEqual([await answerText(page, 0), await answerText(page, 1)]);
    expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 2);
    expect(await page.locator('.bubble.user').allTextContents()).toEqual([
      'The first question.',
      'The second question, typed while it answers.',
    ]);
  });

  it('treats a send made offline as a network condition, never as code that cannot load', async () => {
    const { page, context } = chat;
    await context.setOffline(true);
    await page.getByTestId('composer').fill('Sent while offline.');
    await page.getByTestId('send').click();
    await page.waitForTimeout(3_000); // the client's first attempts and retries meet the network
    expect(await page.locator('body').textContent()).not.toContain('dynamically imported module');
    await context.setOffline(false);
  });
});
