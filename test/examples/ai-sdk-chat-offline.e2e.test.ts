/**
 * The AI SDK demo offline, in real Chromium against the real demo server: a message sent
 * with the browser offline (`context.setOffline`) waits in the client's outbox and says
 * so; back online it streams, once; sent offline and the tab closed, the reopened chat
 * (useChat's resume) sends it with its ID. Judged by what the page shows and the server's
 * counters.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { answerTokens } from '../../examples/ai-sdk-chat/model.js';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startAiSdkDemoProcess } from '../support/demo-process.js';

const TOKEN_DELAY_MS = 20;
const UI_TIMEOUT_MS = 20_000;

describe.skipIf(!chromiumAvailable())('ai-sdk demo offline (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startAiSdkDemoProcess({ tokenDelayMs: TOKEN_DELAY_MS }),
    trackPosts: () => undefined,
    openDemo: true,
    screenshotPrefix: 'ai-sdk-',
  });

  async function ask(on: Page, question: string): Promise<void> {
    await on.getByTestId('composer').fill(question);
    await on.getByTestId('send').click();
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
});
