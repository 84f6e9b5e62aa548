/**
 * The `useChat` + `answerOnceTransport` page (examples/ai-sdk-chat/web) in real Chromium
 * against a real server as a child process — the AI SDK demo's own, or the Next.js
 * example's production build: the exact text a visitor sees, and the model calls the
 * server counted. Each demo's spec file runs it with its server.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { answerTokens } from '../../examples/ai-sdk-chat/model.js';
import { bookingAgentSpecs } from './booking-agent.js';
import { chatDemoSuite } from './chat-demo-suite.js';
import { armTrouble, footerAvoidedCalls } from './chat-page.js';
import { chromiumAvailable } from './chromium.js';
import type { AiSdkDemo } from './demo-process.js';
import { newestInViewSpecs } from './newest-in-view.js';
import { sleep } from './sleep.js';

/** ~45 tokens at this pace: a few seconds per answer, time to reload or stop mid-answer. */
export const TOKEN_DELAY_MS = 80;
const UI_TIMEOUT_MS = 20_000;

/** The text of the `text-delta` chunks of a UI message stream (SSE). */
function textOfStream(sse: string): string {
  let text = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6)) as { type: string; delta?: string };
    if (chunk.type === 'text-delta') text += chunk.delta;
  }
  return text;
}

/** The intent ID of every POST to the chat route, from every page of `context`, from now on. */
function trackChatRequestIds(context: BrowserContext): string[] {
  const ids: string[] = [];
  context.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/chat') {
      ids.push(request.headers()['x-request-id'] ?? '(none)');
    }
  });
  return ids;
}

/**
 * The suite, in a `describe` named `title`, against the server `start` starts (its mock
 * model at TOKEN_DELAY_MS); skipped when Chromium, or what the server `needs`, is missing.
 */
export function describeUseChatDemo(
  title: string,
  {
    start,
    screenshotPrefix,
    startTimeoutMs,
    needs = () => true,
  }: { start: () => Promise<AiSdkDemo>; screenshotPrefix: string; startTimeoutMs?: number; needs?: () => boolean },
): void {
  describe.skipIf(!chromiumAvailable() || !needs())(title, () => {
    // A fresh context per spec: its own localStorage (conversation and pending intents).
    const chat = chatDemoSuite({
      start,
      trackPosts: trackChatRequestIds,
      openDemo: true,
      screenshotPrefix,
      startTimeoutMs,
    });

    async function ask(question: string, on: Page = chat.page): Promise<void> {
      await on.getByTestId('composer').fill(question);
      await on.getByTestId('send').click();
    }

    const answerText = (on: Page = chat.page) => on.getByTestId('answer').last().textContent({ timeout: UI_TIMEOUT_MS });
    const settled = (on: Page = chat.page) =>
      on.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
    /** Waits until the answer on `on` shows at least `words` words, mid-stream. */
    const streamedSome = (on: Page, words: number) =>
      expect
        .poll(async () => (await answerText(on))?.split(' ').length ?? 0, { timeout: UI_TIMEOUT_MS })
        .toBeGreaterThan(words);

    it('completes a stream cut mid-answer with no repeated or missing token, one model call', async () => {
      const { demo, page, chatPosts } = chat;
      await armTrouble(page, 'cut');
      const before = await demo.stats();
      const question = 'What if the stream breaks?';
      await ask(question);
      await settled();

      expect(await answerText()).toBe(answerTokens(before.modelCalls + 1, question).join(''));
      const after = await demo.stats();
      expect(after.cuts).toBe(before.cuts + 1); // the socket was destroyed mid-answer, for real
      expect(after.modelCalls).toBe(before.modelCalls + 1);
      // The answer and its reconnect (with Last-Event-ID) reached the server: at least two requests.
      expect(after.requests).toBeGreaterThanOrEqual(before.requests + 2);
      expect(new Set(chatPosts).size).toBe(1);
      await expect(page.getByTestId('seam').textContent()).resolves.toBe('stream resumed ×1');
      await expect.poll(() => page.getByTestId('model-calls').textContent()).toBe(String(after.modelCalls));
      // The reconnect resumed from a position: no new request for the model, no call avoided.
      expect(await footerAvoidedCalls(page, demo)).toBe(before.avoidedCalls);
    });

    it('replaces the partial answer in place when the model breaks mid-answer and the intent runs again', async () => {
      const { demo, page, chatPosts } = chat;
      await armTrouble(page, 'break');
      const before = await demo.stats();
      const question = 'What if the model fails halfway?';
      await ask(question);
      await settled();

      // The first run's stream failed; the resend ran the model again and the server's
      // answer restarted: the page shows the second run's answer once, in one message.
      expect(await answerText()).toBe(answerTokens(before.modelCalls + 2, question).join(''));
      await expect(page.getByTestId('answer').count()).resolves.toBe(1);
      await expect(page.getByTestId('error').count()).resolves.toBe(0);
      await expect(page.getByTestId('seam').textContent()).resolves.toContain('restarted on the server');
      expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 2);
      expect(new Set(chatPosts).size).toBe(1);
    });

    it('continues the answer on the reloaded page after a reload mid-stream, one model call', async () => {
      const { demo, page, chatPosts } = chat;
      const before = await demo.stats();
      const question = 'Can I reload while you answer?';
      await ask(question);
      await streamedSome(page, 8);
      await page.reload();

      await expect
        .poll(() => answerText(), { timeout: UI_TIMEOUT_MS })
        .toBe(answerTokens(before.modelCalls + 1, question).join(''));
      await settled();
      await expect(page.getByTestId('answer').count()).resolves.toBe(1);
      await expect(page.getByTestId('question').textContent()).resolves.toBe(question);
      const after = await demo.stats();
      expect(after.modelCalls).toBe(before.modelCalls + 1);
      expect(chatPosts.length).toBe(2); // the send, and the reloaded page's resume
      expect(new Set(chatPosts).size).toBe(1);
    });

    it('shows the stopped partial answer after Stop, then reload, without a new model call', async () => {
      const { demo, page, chatPosts } = chat;
      const before = await demo.stats();
      const question = 'Please stop me halfway.';
      await ask(question);
      await streamedSome(page, 8);
      await page.getByTestId('stop').click();
      await settled();
      const [requestId] = chatPosts;

      // What the server kept: the stopped answer, replayed by the status route once the
      // holder has honoured the stop (within a flush window; longer on a loaded machine).
      let stored = await fetch(new URL(`/api/status/${requestId}`, demo.url));
      for (let tries = 0; stored.headers.get('x-idempotent-stopped') !== 'true' && tries < 40; tries++) {
        await stored.body?.cancel();
        await sleep(250);
        stored = await fetch(new URL(`/api/status/${requestId}`, demo.url));
      }
      expect(stored.headers.get('x-idempotent-stopped')).toBe('true');
      const partial = textOfStream(await stored.text());
      const full = answerTokens(before.modelCalls + 1, question).join('');
      expect(partial.length).toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(full.length);
      expect(full.startsWith(partial)).toBe(true);

      await page.reload();
      await expect.poll(() => answerText(), { timeout: UI_TIMEOUT_MS }).toBe(partial);
      await settled();
      await page.waitForTimeout(TOKEN_DELAY_MS * 10); // a model running again would add text by now
      expect(await answerText()).toBe(partial);
      await expect(page.getByTestId('answer').count()).resolves.toBe(1);
      expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 1);
    });

    it('shows one answer in two tabs resuming the same pending intent: one model call, both complete', async () => {
      const { demo, context, page, chatPosts } = chat;
      const before = await demo.stats();
      const question = 'Two tabs, one answer?';
      await ask(question);
      await streamedSome(page, 5);
      // A second tab of the same browser profile: it shares localStorage, so it finds the
      // pending intent and resumes it while the first tab still reads it — by following the
      // first tab's stream (the page's client has `tabs: shareTabs()`), not with a request.
      const second = await context.newPage();
      await second.goto(demo.url);

      const full = answerTokens(before.modelCalls + 1, question).join('');
      await expect.poll(() => answerText(second), { timeout: UI_TIMEOUT_MS }).toBe(full);
      await expect.poll(() => answerText(page), { timeout: UI_TIMEOUT_MS }).toBe(full);
      await settled(second);
      await expect(second.getByTestId('answer').count()).resolves.toBe(1);
      expect((await demo.stats()).modelCalls).toBe(before.modelCalls + 1);
      expect(new Set(chatPosts).size).toBe(1);
      expect(chatPosts.length).toBe(1); // the first tab's send: the second tab follows it
    });

    bookingAgentSpecs(chat);
    newestInViewSpecs(chat);
  });
}
