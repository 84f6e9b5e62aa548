/**
 * Tool approvals with the AI SDK's own chat logic over `answerOnceTransport`: the agent
 * asks before it books (`needsApproval`), and a person answers in every tab that shows the
 * chat. The approval is one intent, keyed by the approval itself: however many tabs answer
 * it, and however often, the tool runs once and every tab shows the one outcome.
 */
import { memoryStorageAdapter } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { ASKED, BOOKED, NOT_BOOKED, startApprovalRig, textOf } from '../support/approval-rig.js';

/** A rig whose first tab asked for the booking and shows the approval request. */
async function asked() {
  const rig = startApprovalRig();
  const first = rig.openTab();
  await first.sendMessage({ text: 'Book table 4 at eight.' });
  await first.settled();
  expect(textOf(first.lastMessage)).toBe(ASKED);
  expect(rig.counts).toEqual({ bookings: 0, modelCalls: 1 });
  return { rig, first, approvalId: first.approvalId };
}

async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 2) {
    if (waited > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const bookPart = (tab: { lastMessage: { parts: { type: string }[] } | undefined }) =>
  tab.lastMessage?.parts.find((part) => part.type === 'tool-book');

describe('answerOnceTransport: tool approvals', () => {
  it('books once when two tabs approve the same request at once, and both tabs show the one booking', async () => {
    const { rig, first, approvalId } = await asked();
    const second = rig.openTab(first.messages);

    await Promise.all([
      first.addToolApprovalResponse({ id: approvalId, approved: true }),
      second.addToolApprovalResponse({ id: approvalId, approved: true }),
    ]);
    await Promise.all([first.settled(), second.settled()]);

    expect(rig.counts).toEqual({ bookings: 1, modelCalls: 2 });
    for (const tab of [first, second]) {
      expect(tab.error).toBeUndefined();
      expect(textOf(tab.lastMessage)).toBe(ASKED + BOOKED);
      expect(bookPart(tab)).toMatchObject({ state: 'output-available', output: { table: 4, confirmation: 'c-4' } });
    }
    expect(new Set(rig.posts.slice(1)).size).toBe(1); // the approval: one intent for both tabs
  });

  it('replays the booking to a tab that approves after the first tab’s answer ended: no second booking, no model call', async () => {
    const { rig, first, approvalId } = await asked();
    const second = rig.openTab(first.messages); // opened before the approval: it still asks

    await first.addToolApprovalResponse({ id: approvalId, approved: true });
    await first.settled();
    await second.addToolApprovalResponse({ id: approvalId, approved: true });
    await second.settled();

    expect(rig.counts).toEqual({ bookings: 1, modelCalls: 2 });
    expect(second.error).toBeUndefined();
    expect(second.messages).toEqual(first.messages);
    expect(textOf(second.lastMessage)).toBe(ASKED + BOOKED);
  });

  it('keeps the first answer when one tab approves and another denies: one booking, and the denying tab shows it', async () => {
    const { rig, first, approvalId } = await asked();
    const second = rig.openTab(first.messages);

    await first.addToolApprovalResponse({ id: approvalId, approved: true });
    await until(() => rig.counts.bookings === 1); // the approval is running: the denial comes while its answer streams
    await second.addToolApprovalResponse({ id: approvalId, approved: false });
    await Promise.all([first.settled(), second.settled()]);

    expect(rig.counts).toEqual({ bookings: 1, modelCalls: 2 });
    for (const tab of [first, second]) {
      expect(tab.error).toBeUndefined();
      expect(textOf(tab.lastMessage)).toBe(ASKED + BOOKED);
      expect(bookPart(tab)).toMatchObject({ state: 'output-available', approval: { id: approvalId, approved: true } });
    }
  });

  it('keeps the first answer when one tab denies and another approves: nothing booked, and the approving tab shows the denial', async () => {
    const { rig, first, approvalId } = await asked();
    const second = rig.openTab(first.messages);

    await first.addToolApprovalResponse({ id: approvalId, approved: false });
    await first.settled();
    await second.addToolApprovalResponse({ id: approvalId, approved: true });
    await second.settled();

    expect(rig.counts).toEqual({ bookings: 0, modelCalls: 2 });
    for (const tab of [first, second]) {
      expect(tab.error).toBeUndefined();
      expect(textOf(tab.lastMessage)).toBe(ASKED + NOT_BOOKED);
      expect(bookPart(tab)).toMatchObject({ state: 'output-denied', approval: { id: approvalId, approved: false } });
    }
  });

  it.each([
    ['the approval just sent', 'approval-responded'],
    ['the booking shown', 'output-available'],
  ] as const)(
    'shows the whole answer on a page reloaded with %s: the text before the tool, the booking, the text after it',
    async (_, saved) => {
      const rig = startApprovalRig();
      const storage = memoryStorageAdapter();
      const first = rig.openTab([], { storage });
      await first.sendMessage({ text: 'Book table 4 at eight.' });
      await first.settled();
      void first.addToolApprovalResponse({ id: first.approvalId, approved: true });
      // The page saves the chat as it changes: the reload finds it with the booking's part as it was then.
      await until(() => (bookPart(first) as { state?: string } | undefined)?.state === saved);
      const page = structuredClone(first.messages);
      await until(() => rig.posts.length === 2);

      // The reload: the chat as the page saved it, its client's storage as it was then, resuming the chat.
      const kept = memoryStorageAdapter();
      for (const intent of await storage.list()) kept.save(intent);
      const reloaded = rig.openTab(page, { storage: kept });
      await reloaded.resumeStream();
      await reloaded.settled();

      expect(reloaded.error).toBeUndefined();
      expect(reloaded.messages).toHaveLength(2);
      expect(textOf(reloaded.lastMessage)).toBe(ASKED + BOOKED);
      expect(bookPart(reloaded)).toMatchObject({ state: 'output-available', approval: { approved: true } });
      await first.settled();
      expect(reloaded.messages).toEqual(first.messages);
      expect(rig.counts).toEqual({ bookings: 1, modelCalls: 2 });
    },
  );
});
