/**
 * The booking agent of the `useChat` demos (examples/shared/agent.ts: the AI SDK demo's
 * and the Next.js example's) in real Chromium against the real demo server: a message asking
 * to book a table runs a two-step turn through `journaled` — the model calls `bookTable`,
 * which asks the person first (Approve / Deny on the page), then answers with the booking.
 * Whatever the person or the server does — a crash after the tool, a crash inside it, a
 * double-click on Send or on Approve, a reload right after Approve, Approve in two tabs,
 * Approve in one and Deny in the other — one message books at most one table, exactly one
 * whenever anyone can know it did and the first answer was yes, none when it was no; every
 * tab shows the same one whole answer. Judged by what each page shows and the server's
 * counters. Registered by use-chat-suite.ts in each demo's suite.
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
/** Where the page saves the conversation (examples/ai-sdk-chat/web/chat.ts). */
const SAVED_MESSAGES = 'answer-once-ai-demo:messages';
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
/** The answer when the person denied the booking. */
const deniedAnswer = bookingIntro(BOOKING) + bookingOutcome({ ok: false, denied: true });

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

  /** Waits until `on` asks the person to approve the booking. */
  const asked = (on: Page = chat.page) =>
    expect.poll(() => booking(on).getAttribute('data-state'), { timeout: UI_TIMEOUT_MS }).toBe('asking');

  /** Sends QUESTION and waits for the approval it asks for; returns the counters from before. */
  async function book(click: 'click' | 'double-click' = 'click'): Promise<Stats> {
    const before = await chat.demo.stats();
    await chat.page.getByTestId('composer').fill(QUESTION);
    const send = chat.page.getByTestId('send');
    if (click === 'click') await send.click();
    else await humanDoubleClick(chat.page, send, 100);
    await asked();
    return before;
  }

  /** Answers the approval on `on`: Approve or Deny, clicked once or double-clicked. */
  async function answer(
    button: 'approve' | 'deny',
    { on = chat.page, click = 'click' }: { on?: Page; click?: 'click' | 'double-click' } = {},
  ): Promise<void> {
    const target = on.getByTestId(button);
    if (click === 'click') await target.click();
    else await humanDoubleClick(on, target, 100);
  }

  /** A second tab of the same browser profile on the same conversation (saved in localStorage), asking too. */
  async function secondTab(): Promise<Page> {
    const second = await chat.context.newPage();
    await second.goto(chat.demo.url);
    await asked(second);
    return second;
  }

  const footer = async (testId: string) => (await chat.page.getByTestId(testId).textContent()) ?? '';

  it('asks before it books, then books one table with two model calls, and shows the booking and the answer', async () => {
    const before = await book();
    // The answer ends with the question: nothing is booked until the person says yes.
    expect(await answers().allTextContents()).toEqual([bookingIntro(BOOKING)]);
    expect((await chat.demo.stats()).bookings).toBe(before.bookings);
    await answer('approve');
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
    await expect.poll(() => footer('bookings'), { timeout: UI_TIMEOUT_MS }).toBe(String(after.bookings));
  });

  it('books nothing when the person denies, and the model says so', async () => {
    const before = await book();
    await answer('deny');
    const after = await answered(deniedAnswer);
    expect(after.bookings).toBe(before.bookings);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('denied');
  });

  it('books once when the server crashes after the tool: the next run replays the booking and continues the answer in place', async () => {
    await armTrouble(chat.page, 'crash-after-tool');
    const before = await book();
    await answer('approve');
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    // The booking came from the journal; only the model step cut by the crash ran again.
    expect(after.modelCalls - before.modelCalls).toBe(3);
    expect(after.replayedToolCalls - before.replayedToolCalls).toBe(1);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
    await expect.poll(() => footer('replayed'), { timeout: UI_TIMEOUT_MS }).toBe(replayedText(after));
  });

  it('never books twice when the server crashes inside the tool, and says the outcome is unknown', async () => {
    await armTrouble(chat.page, 'crash-in-tool');
    const before = await book();
    await answer('approve');
    const after = await answered(unknownAnswer);
    expect(after.bookings - before.bookings).toBeLessThanOrEqual(1);
    expect(after.modelCalls - before.modelCalls).toBe(2); // the tool call not run again, the model told of the unknown
    await expect(booking().getAttribute('data-state')).resolves.toBe('unknown');
    await expect(booking().textContent()).resolves.toContain('outcome unknown');
  });

  it('books once on a double-click on Send', async () => {
    const before = await book('double-click');
    await answer('approve');
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    expect(await chat.page.getByTestId('stopped-badge').count()).toBe(0); // the second click, on Stop, stopped nothing
  });

  it('books once on a double-click on Approve', async () => {
    const before = await book();
    await answer('approve', { click: 'double-click' });
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
  });

  it('books once when the page reloads right after Approve, while the tool runs, and shows the whole answer after the reload', async () => {
    const { page } = chat;
    const before = await book();
    await answer('approve');
    await expect.poll(() => booking().getAttribute('data-state'), { timeout: UI_TIMEOUT_MS }).toBe('booking');
    await page.reload();
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
  });

  it('books once when the page reloads after Approve, before the approval left, and shows the whole answer after the reload', async () => {
    const { page } = chat;
    const before = await book();
    // What Approve leaves in the saved conversation before useChat sends the answer: the
    // approval answered, no request made. A reload then (a slow device, a busy page) is that.
    await page.evaluate((key) => {
      const messages = JSON.parse(localStorage.getItem(key) ?? '[]') as { parts: Record<string, unknown>[] }[];
      for (const part of messages.at(-1)?.parts ?? []) {
        if (part.state !== 'approval-requested') continue;
        part.state = 'approval-responded';
        part.approval = { ...(part.approval as object), approved: true };
      }
      localStorage.setItem(key, JSON.stringify(messages));
    }, SAVED_MESSAGES);
    await page.reload();
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
  });

  it('books once when two tabs both approve, and both show the one booking', async () => {
    const before = await book();
    const second = await secondTab();
    await Promise.all([answer('approve'), answer('approve', { on: second })]);
    await answered(bookedAnswer(before.bookings + 1));
    const after = await answered(bookedAnswer(before.bookings + 1), second);
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking(second).getAttribute('data-state')).resolves.toBe('booked');
  });

  it('lets the first answer win when one tab approves and the other denies: both tabs show the booking', async () => {
    const before = await book();
    const second = await secondTab();
    await answer('approve');
    // The approval reached the server before the denial is sent: it is the first answer.
    await expect
      .poll(async () => (await chat.demo.stats()).requests - before.requests, { timeout: UI_TIMEOUT_MS })
      .toBeGreaterThanOrEqual(2);
    await answer('deny', { on: second });
    await answered(bookedAnswer(before.bookings + 1), second);
    const after = await answered(bookedAnswer(before.bookings + 1));
    expect(after.bookings - before.bookings).toBe(1);
    expect(after.modelCalls - before.modelCalls).toBe(2);
    await expect(booking().getAttribute('data-state')).resolves.toBe('booked');
    await expect(booking(second).getAttribute('data-state')).resolves.toBe('booked');
  });
}
