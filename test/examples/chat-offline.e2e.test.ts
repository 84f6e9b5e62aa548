/**
 * Sends made offline, in real Chromium against the real chat demo server: the browser
 * goes offline (`context.setOffline`), messages wait in the outbox (IndexedDB) and say
 * so; the tab closes; a new tab online sends them once each, in the order they were
 * made. Judged by what the page shows and the server's counters.
 */
import { describe, expect, it } from 'vitest';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import { answerText, ask, footerModelCalls, modelLog, UI_TIMEOUT_MS } from '../support/chat-page.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startDemoProcess } from '../support/demo-process.js';

const MODEL_DELAY_MS = 800;
const QUESTIONS = ['First, sent offline', 'Second, sent offline', 'Third, sent offline'];

describe.skipIf(!chromiumAvailable())('chat demo offline (Chromium)', () => {
  const chat = chatDemoSuite({
    start: () => startDemoProcess({ modelDelayMs: MODEL_DELAY_MS }),
    trackPosts: () => undefined,
  });

  it('three messages sent offline, the tab closed, reopened online: three answers in order, three model calls, none twice', async () => {
    const { demo, context, page } = chat;
    await page.goto(demo.url);
    await expect.poll(() => page.getByTestId('model-calls').textContent(), { timeout: UI_TIMEOUT_MS }).not.toBe('–');
    const before = await demo.stats();

    await context.setOffline(true);
    for (const [index, question] of QUESTIONS.entries()) {
      await ask(page, question);
      await expect
        .poll(() => page.getByTestId('status').textContent(), { timeout: UI_TIMEOUT_MS })
        .toContain(`waiting for a connection · ${index + 1} queued`);
    }
    expect(await page.getByTestId('answer').count()).toBe(0);
    expect((await demo.stats()).requests).toBe(before.requests);
    await page.close();

    await context.setOffline(false);
    const reopened = await context.newPage();
    await reopened.goto(demo.url);
    await expect.poll(() => reopened.getByTestId('answer').count(), { timeout: UI_TIMEOUT_MS }).toBe(3);
    const calls = (await modelLog(demo)).filter((call) => call.call > before.modelCalls);
    expect(calls).toHaveLength(3);
    for (const [index, call] of calls.entries()) expect(await answerText(reopened, index)).toBe(call.text);
    const questions = await reopened.locator('.bubble.user').allTextContents();
    expect(questions).toEqual(QUESTIONS);
    expect(await footerModelCalls(reopened, demo)).toBe(before.modelCalls + 3);
    expect((await demo.stats()).intents).toBe(before.intents + 3);
  });

  it('a message sent offline says it waits, and is answered once when the browser is back online', async () => {
    const { demo, context, page } = chat;
    await page.goto(demo.url);
    await expect.poll(() => page.getByTestId('model-calls').textContent(), { timeout: UI_TIMEOUT_MS }).not.toBe('–');
    const before = await demo.stats();
    await context.setOffline(true);
    await ask(page, 'Anyone there?');
    await expect
      .poll(() => page.getByTestId('status').textContent(), { timeout: UI_TIMEOUT_MS })
      .toContain('waiting for a connection · 1 queued');
    await page.waitForTimeout(1_000);
    expect(await page.getByTestId('answer').count()).toBe(0);
    expect(await page.getByTestId('pending').textContent()).not.toContain('Not answered');

    await context.setOffline(false);
    await page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
    const [call, ...more] = (await modelLog(demo)).filter((c) => c.call > before.modelCalls);
    expect(more).toEqual([]);
    expect(await answerText(page)).toBe(call!.text);
  });
});
