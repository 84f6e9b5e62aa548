/**
 * The chat demo in real Chromium against the real demo server (`examples/chat/server.ts`
 * as a child process): what a visitor sees, and what the model was asked to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import {
  answerText,
  armTrouble as arm,
  ask as askOn,
  footerAvoidedCalls,
  footerModelCalls as footerOf,
  onlyCallSince,
  type TroubleMode,
  trackChatPosts,
  UI_TIMEOUT_MS,
} from '../support/chat-page.js';
import { chromiumAvailable } from '../support/chromium.js';
import { type DemoProcess, startDemoProcess } from '../support/demo-process.js';

/** Short enough for a quick suite (the streaming cases are in chat-stream.test.ts). */
const MODEL_DELAY_MS = 1500;

describe.skipIf(!chromiumAvailable())('chat demo in Chromium', () => {
  const chat = chatDemoSuite({
    start: () => startDemoProcess({ modelDelayMs: MODEL_DELAY_MS }),
    trackPosts: (_context, page) => trackChatPosts(page),
  });

  const ask = (question: string, click: 'click' | 'dblclick' = 'click') => askOn(chat.page, question, click);
  const armTrouble = (mode: TroubleMode) => arm(chat.page, mode);
  const footerModelCalls = (server: DemoProcess = chat.demo) => footerOf(chat.page, server);

  it('answers a double-clicked send once: one request, one answer, one model call', async () => {
    const { demo, page, chatPosts } = chat;
    const before = await demo.stats();
    await page.goto(demo.url);
    await ask('What happens if I double-click?', 'dblclick');

    const answers = page.getByTestId('answer');
    await answers.first().waitFor({ timeout: UI_TIMEOUT_MS });
    // Give a duplicate every chance to show up before counting.
    await page.waitForTimeout(MODEL_DELAY_MS + 500);

    await expect.poll(() => answers.count()).toBe(1);
    expect(chatPosts).toHaveLength(1);
    expect(await page.getByTestId('replayed-badge').count()).toBe(0);
    expect(await footerModelCalls()).toBe(before.modelCalls + 1);
    expect((await demo.stats()).intents).toBe(before.intents + 1);
  });

  it('still answers when the response is lost, without a second model call, and shows the badge', async () => {
    const { demo, page, chatPosts } = chat;
    await page.goto(demo.url);
    await armTrouble('lose');
    const before = await demo.stats();
    await ask('What if the network drops your reply?');

    const answer = page.getByTestId('answer');
    await answer.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(answer.getByTestId('replayed-badge').isVisible()).resolves.toBe(true);
    await expect(answer.textContent()).resolves.toContain('What if the network drops your reply?');
    expect(await answerText(page)).toBe((await onlyCallSince(demo, before.modelCalls)).text);

    // Two requests reached the server (the lost one and its retry — resent by the client,
    // or silently by Chromium itself when a reused connection drops), one model call.
    expect(new Set(chatPosts.map((post) => post.requestId)).size).toBe(1);
    expect(await footerModelCalls()).toBe(before.modelCalls + 1);
    const after = await demo.stats();
    expect(after.requests).toBe(before.requests + 2);
    expect(after.intents).toBe(before.intents + 1);
    // The retry was the intent's one send answered without a run: one call avoided.
    expect(await footerAvoidedCalls(page, demo)).toBe(before.avoidedCalls + 1);
  });

  it('shows "retrying (1/5)" after a 503 before the work, then answers with one model call and no badge', async () => {
    const { demo, page, chatPosts } = chat;
    await page.goto(demo.url);
    await armTrouble('503');
    const before = await demo.stats();
    await ask('What if the gateway is overloaded?');

    await page.getByText('retrying (1/5)…').waitFor({ timeout: UI_TIMEOUT_MS });
    const answer = page.getByTestId('answer');
    await answer.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(answer.textContent()).resolves.toContain('2 attempts');
    expect(await answer.getByTestId('replayed-badge').count()).toBe(0);
    expect(await answerText(page)).toBe((await onlyCallSince(demo, before.modelCalls)).text);
    expect(chatPosts).toHaveLength(2);
    expect(await footerModelCalls()).toBe(before.modelCalls + 1);
  });

  it('waits out a gateway timeout: "still generating…" (202 + long-poll), then the stream of the one run', async () => {
    const { demo, page, chatPosts } = chat;
    await page.goto(demo.url);
    await armTrouble('slow');
    const before = await demo.stats();
    await ask('Take your time: think it over.');

    await page.locator('[data-testid="status"][data-state="waiting"]').waitFor({ timeout: UI_TIMEOUT_MS });
    const answer = page.getByTestId('answer');
    await answer.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await answerText(page)).toBe((await onlyCallSince(demo, before.modelCalls)).text);
    // The gateway's 504, the retry that learned the intent was running (202), one intent.
    expect(chatPosts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(chatPosts.map((post) => post.requestId)).size).toBe(1);
    expect(await footerModelCalls()).toBe(before.modelCalls + 1);
  });

  describe('with the API on another origin', () => {
    let api: DemoProcess;

    beforeAll(async () => {
      // Slow enough to press Stop mid-answer.
      api = await startDemoProcess({ modelDelayMs: 3000 });
    });

    afterAll(async () => {
      await api?.stop();
    });

    it('works across origins (CORS exposes the replay header): answer and badge shown', async () => {
      const { demo, page, chatPosts } = chat;
      const apiBase = new URL('/api', api.url).href;
      expect(new URL(apiBase).origin).not.toBe(new URL(demo.url).origin);
      const pageServerBefore = await demo.stats();
      const apiBefore = await api.stats();

      await page.goto(`${demo.url}?api=${encodeURIComponent(apiBase)}`);
      await expect(page.getByTestId('api-origin').textContent()).resolves.toContain(new URL(api.url).origin);
      await armTrouble('lose'); // a cross-origin PUT: preflighted
      await ask('Does this work from another origin?');

      const answer = page.getByTestId('answer');
      await answer.waitFor({ timeout: UI_TIMEOUT_MS });
      await expect(answer.getByTestId('replayed-badge').isVisible()).resolves.toBe(true);
      expect(new Set(chatPosts.map((post) => new URL(post.url).origin))).toEqual(new Set([new URL(api.url).origin]));
      expect(await footerModelCalls(api)).toBe(apiBefore.modelCalls + 1);
      expect((await api.stats()).requests).toBe(apiBefore.requests + 2);
      expect(await demo.stats()).toEqual(pageServerBefore);
    });

    it('streams across origins: a cut stream resumes (Last-Event-ID, preflighted) and Stop reaches the server', async () => {
      const { demo, page } = chat;
      const apiBase = new URL('/api', api.url).href;
      const apiBefore = await api.stats();
      await page.goto(`${demo.url}?api=${encodeURIComponent(apiBase)}`);
      await armTrouble('cut');
      await ask('Cut me off across origins.');
      await page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await answerText(page)).toBe((await onlyCallSince(api, apiBefore.modelCalls)).text);

      await ask('Now stop me across origins.');
      const text = page.getByTestId('streaming-text');
      await expect
        .poll(async () => ((await text.textContent().catch(() => '')) ?? '').length, {
          timeout: UI_TIMEOUT_MS,
        })
        .toBeGreaterThan(10);
      await page.getByTestId('stop').click(); // a cross-origin DELETE: preflighted
      await page.getByTestId('stopped-badge').waitFor({ timeout: UI_TIMEOUT_MS });
      const stopped = await onlyCallSince(api, apiBefore.modelCalls + 1);
      // The model may have written a word more before the stop reached it; the answer kept is what was shown.
      expect(stopped).toMatchObject({ stopped: true });
      expect(stopped.text.startsWith(await answerText(page, 1))).toBe(true);
      expect(await footerModelCalls(api)).toBe(apiBefore.modelCalls + 2);
    });
  });
});
