/**
 * The booking agent of the `useChat` demos (examples/shared/agent.ts: the AI SDK demo's
 * and the Next.js example's) in real Chromium against the real demo server: a message asking
 * to book a table runs a two-step turn (the model calls `bookTable`, then answers with the
 * booking) through `journaled`. Whatever the person or the server does — a crash after the
 * tool, a crash inside it, a double-click on Send, a reload while the tool runs — one
 * message books at most one table, and exactly one whenever anyone can know it did; the
 * person sees one whole answer. Judged by what the page shows and the server's counters.
 * Registered by use-chat-suite.ts in each demo's suite.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { bookingAskedIn, bookingIntro, bookingOutcome } from '../../examples/ai-sdk-chat/model.js';
import { replayedText } from '../../examples/ai-sdk-chat/web/use-server.js';
import type { Stats } from '../../examples/shared/stats.js';
import type { ChatDemoSuite } from './chat-demo-suite.js';
import { armTrouble } from './chat-page.js';
import type { AiSdkDemo } from './demo-process.js';
import { humanDoubleClick } from './people.js';

const UI_TIMEOUT_MS = 20_000;
const QUESTION = 'Book a table for 2 at 8, please.';
const BOOKING = bookingAskedIn(QUESTION)!;

/** The answer to QUESTION when the restaurant's `number`-th booking was this one's (../shared/restaurant.ts). */
const bookedAnswer = (number: number) =>
  bookingIntro(BOOKING) +
  bookingOutcome({
    ok: true,
    value: { table: ((number * 7) % 20) + 1, confirmation: `T-${String(number).padStart(4, '0')}` },
  });
/** The answer when the booking's outcome is unknown: the model was told it may or may not have happened. */
const unknownAnswer = bookingIntro(BOOKING) + bookingOutcome({ ok: false, error: 'it may or may not have happened' });

export function bookingAgentSpecs(chat: ChatDemoSuite<AiSdkDemo, unknown>): void {
  const answers = (on: Page = chat.page) => on.getByTestId('answer');
  const booking = (on: Page = chat.page) => on.getByTestId('booking');

  /** Waits until the page shows `text` as its one answer, the chat ready, no error; returns the server's counters then. */
  async function answered(text: string, on: Page = chat.page): Promise<Stats> {
    await expect.poll(() => answers(on).allTextContents(), { timeout: UI_TIMEOUT_MS }).toEqual([text]);
    await on.locator('[data-testid="status"][data-state="ready"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await on.getByTestId('error').count()).toBe(0);
    expect(await answers(on).allTextContents()).toEqual([text]);
    return chat.demo.stats();
  }

  /** Sends QUESTION; returns the counters from before. */
  async function book(click: 'click' | 'double-click' = 'click'): Promise<Stats> {
    const before = await chat.demo.stats();
    await chat.page.getByTestId('composer').fill(QUESTION);
    const send = chat.page.getByTestId('send');
    if (click === 'click') await send.click();
    else await humanDoubleClick(chat.page, send, 100);
    return before;
  }

  const footer = async (testId: string) => (await chat.page.getByTestId(testId).textContent()) ?? '';

  it('books one table with two model calls, and shows the booking and the answer', async () => {
    const before = await book();
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
    await expect.poll(() => footer('bookings'), { timeout: UI_TIMEOUT_MS }).toBe(String(after.bookings));
  });

  it('books once when the server crashes after the tool: the next run replays the booking and continues the answer in place', async () => {
    await armTrouble(chat.page, 'crash-after-tool');
    const before = await book();
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    // The first step and the booking came from the journal; only the step cut by the crash ran again.
    expect(after.modelCalls - before.modelCalls).toBe(3);
    expect(after.replayedModelCalls - before.replayedModelCalls).toBe(1);
    expect(after.replayedToolCalls - before.replayedToolCalls).toBe(1);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
    await expect.poll(() => footer('replayed'), { timeout: UI_TIMEOUT_MS }).toBe(replayedText(after));
  });

  it('never books twice when the server crashes inside the tool, and says the outcome is unknown', async () => {
    await armTrouble(chat.page, 'crash-in-tool');
    const before = await book();
    const after = await answered(unknownAnswer);
    expect(after.bookings - before.bookings).toBeLessThanOrEqual(1);
    expect(after.modelCalls - before.modelCalls).toBe(2); // the first step replayed, the second told of the unknown
    await expect(booking().getAttribute('data-state')).resolves.toBe('unknown');
    await expect(booking().textContent()).resolves.toContain('outcome unknown');
  });

  it('books once on a double-click on Send', async () => {
    const before = await book('double-click');
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    expect(await chat.page.getByTestId('stopped-badge').count()).toBe(0); // the second click, on Stop, stopped nothing
  });

  it('books once when the page reloads while the tool runs, and shows the whole answer after the reload', async () => {
    const { page } = chat;
    const before = await book();
    await expect.poll(() => booking().getAttribute('data-state'), { timeout: UI_TIMEOUT_MS }).toBe('booking');
    await page.reload();
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
  });
}
