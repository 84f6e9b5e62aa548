/**
 * The chat demo's streamed answers in real Chromium against the real demo server
 * (`examples/chat/server.ts` as a child process): a stream cut for real mid-answer, a
 * reload mid-stream, Stop then reload, and two tabs resuming one pending intent. Every
 * text is compared with what the model wrote (`/api/model-log`), so a token shown
 * twice or missing fails; model calls come from `/api/stats`.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chatDemoSuite } from '../support/chat-demo-suite.js';
import {
  answerText,
  armTrouble,
  ask,
  footerAvoidedCalls,
  footerModelCalls,
  modelLog,
  onlyCallSince,
  trackChatPosts,
  UI_TIMEOUT_MS,
} from '../support/chat-page.js';
import { chromiumAvailable } from '../support/chromium.js';
import { startDemoProcess } from '../support/demo-process.js';

/** A quarter thinking (past the 500 ms stop guard), then ~30 tokens: long enough to act mid-stream. */
const MODEL_DELAY_MS = 4000;

describe.skipIf(!chromiumAvailable())('chat demo streaming in Chromium', () => {
  const chat = chatDemoSuite({
    start: () => startDemoProcess({ modelDelayMs: MODEL_DELAY_MS }),
    trackPosts: (_context, page) => trackChatPosts(page),
  });

  /** Waits until the streaming bubble of `on` shows at least `chars` characters; returns its text. */
  async function streamed(on: Page, chars: number): Promise<string> {
    const text = on.getByTestId('streaming-text');
    await expect
      .poll(async () => ((await text.textContent().catch(() => '')) ?? '').length, {
        timeout: UI_TIMEOUT_MS,
      })
      .toBeGreaterThanOrEqual(chars);
    return (await text.textContent()) ?? '';
  }

  it('completes a stream cut mid-answer: every token once, none missing, one model call', async () => {
    const { demo, page, chatPosts } = chat;
    await page.goto(demo.url);
    await armTrouble(page, 'cut');
    const before = await demo.stats();
    await ask(page, 'What if the stream breaks halfway?');

    await streamed(page, 1);
    await page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
    const call = await onlyCallSince(demo, before.modelCalls);
    expect(call).toMatchObject({ done: true, stopped: false });
    expect(await answerText(page)).toBe(call.text);
    await expect(page.getByTestId('answer').textContent()).resolves.toContain('stream resumed ×1');
    // The cut request and the reconnect that carried on from its last event, one intent.
    expect(chatPosts).toHaveLength(2);
    expect(new Set(chatPosts.map((post) => post.requestId)).size).toBe(1);
    expect(await footerModelCalls(page, demo)).toBe(before.modelCalls + 1);
    // The reconnect resumed from its last event: no new request for the model, no call avoided.
    expect(await footerAvoidedCalls(page, demo)).toBe(before.avoidedCalls);
  });

  it('continues the answer on the page after a reload mid-stream, with one model call', async () => {
    const { demo, page, chatPosts } = chat;
    await page.goto(demo.url);
    const before = await demo.stats();
    await ask(page, 'Can I reload while you write?');
    const beforeReload = await streamed(page, 20);
    const sentId = chatPosts[0]!.requestId;

    await page.reload();
    // The reloaded page streams again (from the start of the server's log, then live).
    const afterReload = await streamed(page, 1);
    await page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
    const call = await onlyCallSince(demo, before.modelCalls);
    expect(call.text.startsWith(beforeReload)).toBe(true);
    expect(call.text.startsWith(afterReload)).toBe(true);
    expect(await answerText(page)).toBe(call.text);
    expect(new Set(chatPosts.map((post) => post.requestId))).toEqual(new Set([sentId]));
    await expect(page.getByTestId('answer').getAttribute('data-request-id')).resolves.toBe(sentId);
    expect(await page.getByTestId('answer').count()).toBe(1);
    expect(await footerModelCalls(page, demo)).toBe(before.modelCalls + 1);
  });

  it('stops the model on the server, and after a reload shows the stopped partial answer without a new call', async () => {
    const { demo, page, chatPosts } = chat;
    await page.goto(demo.url);
    const before = await demo.stats();
    await ask(page, 'Write me something long, I will stop you.');
    await streamed(page, 20);
    await page.getByTestId('stop').click();

    const answer = page.getByTestId('answer');
    await answer.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(answer.getByTestId('stopped-badge').isVisible()).resolves.toBe(true);
    const partial = await answerText(page);
    const call = await onlyCallSince(demo, before.modelCalls);
    // The model may have written a word more before the stop reached it; the answer kept is what was shown.
    expect(call).toMatchObject({ done: true, stopped: true });
    expect(call.text.startsWith(partial)).toBe(true);
    expect(partial.length).toBeGreaterThanOrEqual(20);

    const posts = chatPosts.length;
    await page.reload();
    await page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
    // The reload resumed the stopped intent: the server replayed its stopped answer.
    await expect.poll(() => chatPosts.length, { timeout: UI_TIMEOUT_MS }).toBe(posts + 1);
    await page.waitForTimeout(MODEL_DELAY_MS / 2);
    expect(await page.getByTestId('answer').count()).toBe(1);
    expect(await answerText(page)).toBe(partial);
    await expect(page.getByTestId('stopped-badge').isVisible()).resolves.toBe(true);
    expect((await modelLog(demo)).filter((c) => c.call > before.modelCalls)).toHaveLength(1);
    expect(await footerModelCalls(page, demo)).toBe(before.modelCalls + 1);
  });

  it('stops the model before its first word: a stopped turn with no text, and a reload calls nothing again', async () => {
    const { demo, page } = chat;
    await page.goto(demo.url);
    const before = await demo.stats();
    await ask(page, 'Never mind, I will stop you at once.');
    // While the model still thinks (1 s), past the stop guard (500 ms: sooner is a double-click's second click).
    await page.waitForTimeout(600);
    await page.getByTestId('stop').click();
    const answer = page.getByTestId('answer');
    await answer.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(answer.getByTestId('stopped-badge').isVisible()).resolves.toBe(true);
    expect(await answerText(page)).toBe('(stopped before the first word)');
    expect(await onlyCallSince(demo, before.modelCalls)).toMatchObject({ text: '', stopped: true });

    await page.reload();
    await page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.waitForTimeout(MODEL_DELAY_MS / 2);
    expect(await page.getByTestId('answer').count()).toBe(1);
    expect(await page.getByTestId('pending').count()).toBe(0);
    expect(await footerModelCalls(page, demo)).toBe(before.modelCalls + 1);
  });

  it('shows one answer in two tabs resuming the same pending intent, over one stream, for one model call', async () => {
    const { demo, context, page, chatPosts } = chat;
    await page.goto(demo.url);
    const before = await demo.stats();
    await ask(page, 'Two tabs, one answer?');
    await streamed(page, 10);
    // A duplicated tab: the browser copies sessionStorage into it (the demo keeps its
    // pending intents in localStorage, which every tab of the origin shares anyway).
    const entries = await page.evaluate(() => Object.entries(sessionStorage));
    const other = await context.newPage();
    const otherPosts = trackChatPosts(other);
    await other.addInitScript((stored: [string, string][]) => {
      for (const [key, value] of stored) sessionStorage.setItem(key, value);
    }, entries);
    // Both resume at once: the reloaded tab and the new one.
    await Promise.all([page.reload(), other.goto(demo.url)]);

    await Promise.all([
      page.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS }),
      other.getByTestId('answer').waitFor({ timeout: UI_TIMEOUT_MS }),
    ]);
    const call = await onlyCallSince(demo, before.modelCalls);
    expect(await answerText(page)).toBe(call.text);
    expect(await answerText(other)).toBe(call.text);
    expect(new Set([...chatPosts, ...otherPosts].map((post) => post.requestId)).size).toBe(1);
    // The send, then one stream for both tabs after the reload: one reads, one follows.
    expect([...chatPosts, ...otherPosts]).toHaveLength(2);
    expect(await footerModelCalls(other, demo)).toBe(before.modelCalls + 1);
  });
});
