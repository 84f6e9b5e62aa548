/**
 * The newest message kept in view, on the `useChat` page (examples/ai-sdk-chat/web, also
 * the Next.js example's): in a small window, over a conversation long enough to scroll, the
 * stopped mark, the "waiting for a connection" line and a second tab's live answer each
 * show between the header and the composer without the person scrolling; and a person who
 * scrolled up to read is left there. Registered by use-chat-suite.ts in each demo's suite.
 */
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ChatDemoSuite } from './chat-demo-suite.js';
import type { AiSdkDemo } from './demo-process.js';

const UI_TIMEOUT_MS = 20_000;
const SMALL_WINDOW = { width: 800, height: 600 };
/** Turns already in the conversation: several screens of it in SMALL_WINDOW. */
const EARLIER_TURNS = 12;

/** Whether `element` shows whole between the sticky header and the composer's dock. */
const inView = (element: Locator): Promise<boolean> =>
  element.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const top = document.querySelector('header')?.getBoundingClientRect().bottom ?? 0;
    const bottom = document.querySelector('.dock')?.getBoundingClientRect().top ?? innerHeight;
    return box.height > 0 && box.top >= top - 1 && box.bottom <= bottom + 1;
  });

/** Opens the demo in SMALL_WINDOW on a conversation of EARLIER_TURNS turns (the page keeps it in localStorage). */
async function longConversation(page: Page, url: string): Promise<void> {
  await page.setViewportSize(SMALL_WINDOW);
  // The page saves its (empty) conversation once mounted: seed it after that, not before.
  await page.waitForFunction(() => localStorage.getItem('answer-once-ai-demo:messages') !== null);
  await page.evaluate((turns) => {
    const messages = Array.from({ length: turns }, (_, turn) => [
      { id: `earlier-q${turn}`, role: 'user', parts: [{ type: 'text', text: `Earlier question ${turn + 1}.` }] },
      {
        id: `earlier-a${turn}`,
        role: 'assistant',
        parts: [
          { type: 'text', text: `Earlier answer ${turn + 1}, long enough to wrap over a line or two of the window. ` },
        ],
      },
    ]).flat();
    localStorage.setItem('answer-once-ai-demo:messages', JSON.stringify(messages));
  }, EARLIER_TURNS);
  await page.goto(url);
  await expect.poll(() => page.getByTestId('answer').count(), { timeout: UI_TIMEOUT_MS }).toBe(EARLIER_TURNS);
  expect(await page.evaluate(() => document.documentElement.scrollHeight > innerHeight * 2)).toBe(true);
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByTestId('composer').fill(question);
  await page.getByTestId('send').click();
}

/** Waits until the newest answer on `page` shows more than `words` words. */
const streamedSome = (page: Page, words: number) =>
  expect
    .poll(async () => ((await page.getByTestId('answer').last().textContent()) ?? '').split(' ').length, {
      timeout: UI_TIMEOUT_MS,
    })
    .toBeGreaterThan(words);

export function newestInViewSpecs(chat: ChatDemoSuite<AiSdkDemo, unknown>): void {
  it('keeps the stopped mark in view in a small window', async () => {
    const { demo, page } = chat;
    await longConversation(page, demo.url);
    await ask(page, 'Stop me, then show me the mark.');
    await streamedSome(page, 8);
    await page.waitForTimeout(600); // past the stop guard: this click is a Stop
    await page.getByTestId('stop').click();
    const mark = page.getByTestId('stopped-badge');
    await mark.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect.poll(() => inView(mark), { timeout: 2_000 }).toBe(true);
  });

  it('keeps the "waiting for a connection" line in view in a small window', async () => {
    const { context, demo, page } = chat;
    await longConversation(page, demo.url);
    await context.setOffline(true);
    await ask(page, 'Sent while offline.');
    const waiting = page.getByTestId('offline');
    await waiting.waitFor({ timeout: UI_TIMEOUT_MS });
    await expect(waiting.textContent()).resolves.toMatch(/waiting for a connection · \d+ queued/);
    await expect.poll(() => inView(waiting), { timeout: 2_000 }).toBe(true);
    await context.setOffline(false);
  });

  it("keeps a second tab's live answer in view in a small window", async () => {
    const { context, demo, page } = chat;
    await longConversation(page, demo.url);
    await ask(page, 'Follow me from another tab.');
    await streamedSome(page, 3);
    const second = await context.newPage();
    await second.setViewportSize(SMALL_WINDOW);
    await second.goto(demo.url);
    const live = second.getByTestId('answer').last();
    await streamedSome(second, 12);
    await expect(second.getByTestId('status').getAttribute('data-state')).resolves.toBe('streaming');
    await expect.poll(() => inView(live), { timeout: 2_000 }).toBe(true);
    await second.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await inView(live)).toBe(true);
  });

  it('leaves a person who scrolled up to read where they are while the answer streams', async () => {
    const { demo, page } = chat;
    await longConversation(page, demo.url);
    await ask(page, 'Stream while I read above.');
    await streamedSome(page, 3);
    await page.mouse.move(400, 300);
    // Up to the top a wheel turn at a time, as a person does: how far that is depends on
    // how much streamed before the first turn.
    await expect
      .poll(async () => {
        await page.mouse.wheel(0, -2_000);
        return page.evaluate(() => scrollY);
      })
      .toBe(0);
    await streamedSome(page, 15); // lines were added meanwhile
    expect(await page.evaluate(() => scrollY)).toBe(0);
  });
}
