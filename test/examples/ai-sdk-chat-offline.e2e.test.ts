/**
 * The AI SDK demo offline, in real Chromium against the real demo server: a message sent
 * with the browser offline (`context.setOffline`) waits in the client's outbox and says
 * so; back online it streams, once; sent offline and the tab closed, the reopened chat
 * (useChat's resume) sends it with its ID, and the messages queued behind it after it, in
 * order. Judged by what the page shows and the server's counters.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { answerTokens } from '../../examples/ai-sdk-chat/model.js';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startAiSdkDemoProcess } from '../support/demo-process.js';

const TOKEN_DELAY_MS = 20;
const UI_TIMEOUT_MS = 20_000;
const QUESTIONS = ['First, sent offline', 'Second, sent offline', 'Third, sent offline'];

describe.skipIf(!chromiumAvailable())('ai-sdk demo offline (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startAiSdkDemoProcess({ tokenDelayMs: TOKEN_DELAY_MS }),
    trackPosts: () => undefined,
    openDemo: true,
    screenshotPrefix: 'ai-sdk-',
  });

  /** Types `question` and presses Enter (while an answer is pending, Stop has taken Send's place). */
  async function ask(on: Page, question: string): Promise<void> {
    await on.getByTestId('composer').fill(question);
    await on.getByTestId('composer').press('Enter');
  }
  const answerText = (on: Page) => on.getByTestId('answer').last().textContent({ timeout: UI_TIMEOUT_MS });
  const ready = (on: Page) => on.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });

  it('a message sent offline says it waits, sends nothing, and streams once the browser is back online', async () => {
    const { demo, context, page } = chat;
    await ready(page);
    const before = await demo.stats();
    await context.setOffline(true);
    const question = 'Anyone there?';
    await ask(page, question);
    await expect
      .poll(() => page.getByTestId('offline').textContent(), { timeout: UI_TIMEOUT_MS })
      .toBe('waiting for a connection · 1 queued');
    await page.waitForTimeout(1_000);
    expect(await page.getByTestId('error').count()).toBe(0);
    expect((await demo.stats()).requests).toBe(before.requests);

    await context.setOffline(false);
    await ready(page);
    expect(await answerText(page)).toBe(answerTokens(before.modelCalls + 1, question).join(''));
    expect(await page.getByTestId('offline').count()).toBe(0);
    expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 1);
  });

  it('a message sent offline, the tab closed, the chat reopened online: answered once, with its ID', async () => {
    const { demo, context, page } = chat;
    await ready(page);
    const before = await demo.stats();
    await context.setOffline(true);
    const question = 'Sent in a tunnel';
    await ask(page, question);
    await page.getByTestId('offline').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.close();

    await context.setOffline(false);
    const reopened = await context.newPage();
    await reopened.goto(demo.url);
    await expect
      .poll(() => answerText(reopened), { timeout: UI_TIMEOUT_MS })
      .toBe(answerTokens(before.modelCalls + 1, question).join(''));
    const after = await demo.stats();
    expect(after.modelCalls).toBe(before.modelCalls + 1);
    expect(after.intents).toBe(before.intents + 1);
  });

  it('three messages sent offline, the tab closed, reopened online: three answers in order, three model calls, none twice', async () => {
    const { demo, context, page } = chat;
    await ready(page);
    const before = await demo.stats();
    await context.setOffline(true);
    for (const [index, question] of QUESTIONS.entries()) {
      await ask(page, question);
      await expect
        .poll(() => page.getByTestId('offline').textContent(), { timeout: UI_TIMEOUT_MS })
        .toBe(`waiting for a connection · ${index + 1} queued`);
    }
    expect((await demo.stats()).requests).toBe(before.requests);
    await page.close();

    await context.setOffline(false);
    const reopened = await context.newPage();
    await reopened.goto(demo.url);
    const answers = QUESTIONS.map((question, index) => answerTokens(before.modelCalls + 1 + index, question).join(''));
    await expect
      .poll(() => reopened.getByTestId('answer').allTextContents(), { timeout: UI_TIMEOUT_MS * 2 })
      .toEqual(answers);
    expect(await reopened.getByTestId('question').allTextContents()).toEqual(QUESTIONS);
    await ready(reopened);
    expect(await reopened.getByTestId('queued').count()).toBe(0);
    const after = await demo.stats();
    expect(after.modelCalls).toBe(before.modelCalls + 3);
    expect(after.intents).toBe(before.intents + 3);
  });
});
