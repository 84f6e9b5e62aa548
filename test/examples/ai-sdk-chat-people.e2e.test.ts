/**
 * The AI SDK demo as people use it, in real Chromium against the real demo server: a
 * human double-click (the second click lands on Stop, which took Send's place), Stop then
 * reload (exactly the text on screen at Stop, every round), a message typed while an
 * answer streams (queued, visibly), and a send made offline (a network condition, never
 * a chunk that cannot load). Judged by what the page shows and the server's counters.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { answerTokens } from '../../examples/ai-sdk-chat/model.js';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startAiSdkDemoProcess } from '../support/demo-process.js';
import { clickReading, humanDoubleClick, keptAtStop, trackMethod } from '../support/people.js';

/** ~45 tokens at this pace: a few seconds per answer, time to stop mid-answer. */
const TOKEN_DELAY_MS = 60;
const UI_TIMEOUT_MS = 20_000;
const ROUNDS = 10;

describe.skipIf(!chromiumAvailable())('ai-sdk demo as people use it (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startAiSdkDemoProcess({ tokenDelayMs: TOKEN_DELAY_MS }),
    trackPosts: (context) => trackMethod(context, 'POST', '/api/chat'),
    openDemo: true,
    screenshotPrefix: 'ai-sdk-people-',
  });

  const answers = (on: Page = chat.page) => on.getByTestId('answer');
  const lastAnswer = (on: Page = chat.page) => answers(on).last().textContent({ timeout: UI_TIMEOUT_MS });
  const settled = (on: Page = chat.page) =>
    on.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });

  it.each([100, 200])(
    'answers a human double-click on Send (second click %d ms later, on Stop) once, whole and not stopped',
    async (gapMs) => {
      const { demo, page, context } = chat;
      const deletes = trackMethod(context, 'DELETE', '/api/status/');
      const before = await demo.stats();
      const question = `Double-click me (${gapMs} ms).`;
      await page.getByTestId('composer').fill(question);
      await humanDoubleClick(page, page.getByTestId('send'), gapMs);
      await expect.poll(() => page.getByTestId('stop').count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
      await settled();
      expect(await lastAnswer()).toBe(answerTokens(before.modelCalls + 1, question).join(''));
      expect(await page.getByTestId('stopped-badge').count()).toBe(0);
      expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 1);
      expect(deletes).toHaveLength(0);
    },
  );

  it(`shows exactly the text on screen at Stop after a reload, ${ROUNDS} rounds out of ${ROUNDS}`, async () => {
    const { demo, page } = chat;
    const before = await demo.stats();
    for (let round = 1; round <= ROUNDS; round++) {
      const question = `Round ${round}: stop me.`;
      await page.getByTestId('composer').fill(question);
      await page.getByTestId('send').click();
      const sentAt = Date.now();
      // Mid-answer, and past the stop guard (a click this late is a Stop, not a double-click).
      await expect
        .poll(async () => ((await lastAnswer()) ?? '').split(' ').length, { timeout: UI_TIMEOUT_MS })
        .toBeGreaterThanOrEqual(6 + (round % 4));
      await page.waitForTimeout(Math.max(0, 700 - (Date.now() - sentAt)));
      const atClick = await clickReading(page, '[data-testid="stop"]', '[data-testid="answer"]');
      await settled();
      const onScreen = keptAtStop(atClick, await lastAnswer());
      await answers().last().locator('..').getByTestId('stopped-badge').waitFor({ timeout: UI_TIMEOUT_MS });
      const full = answerTokens(before.modelCalls + round, question).join('');
      expect(onScreen && full.startsWith(onScreen) && onScreen.length < full.length).toBe(true);

      await page.reload();
      await expect.poll(() => answers().count(), { timeout: UI_TIMEOUT_MS }).toBe(round);
      await settled();
      await page.waitForTimeout(TOKEN_DELAY_MS * 6); // a replay with more text would show it by now
      expect(await lastAnswer(), `round ${round}`).toBe(onScreen);
      expect(await page.getByTestId('stopped-badge').count()).toBe(round);
    }
    expect((await demo.stats()).modelCalls).toBe(before.modelCalls + ROUNDS);
  });

  it('queues a message sent while an answer streams, visibly, and sends it when the answer ends', async () => {
    const { demo, page } = chat;
    const before = await demo.stats();
    await page.getByTestId('composer').fill('The first question.');
    await page.getByTestId('send').click();
    await expect.poll(async () => (await lastAnswer())?.length ?? 0, { timeout: UI_TIMEOUT_MS }).toBeGreaterThan(10);
    await page.getByTestId('composer').fill('The second question, typed while it answers.');
    await page.getByTestId('composer').press('Enter');
    const queued = page.getByTestId('queued');
    await expect(queued.textContent()).resolves.toContain('The second question, typed while it answers.');
    await expect(queued.textContent()).resolves.toContain('queued');
    await expect.poll(() => answers().count(), { timeout: UI_TIMEOUT_MS }).toBe(2);
    await expect.poll(() => queued.count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
    await settled();
    expect(await answers().first().textContent()).toBe(answerTokens(before.modelCalls + 1, 'The first question.').join(''));
    expect(await lastAnswer()).toBe(
      answerTokens(before.modelCalls + 2, 'The second question, typed while it answers.').join(''),
    );
    expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 2);
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
