/**
 * The demos' chat handler — the part to copy: `createIdempotencyHandler` whose work is an
 * agent turn (`streamText` with a `bookTable` tool and `stopWhen`) through `journaled`, so
 * each model call and each tool call of a message runs once across every run of its
 * intent, and a run that died half-way is continued in place by the next. `bookTable`
 * asks the person first (`needsApproval`): the answer ends with the approval request, and
 * the page's answer to it is a request of its own, one intent however many clicks or tabs
 * send it (docs/ai-sdk.md, "Tool approvals"). The faults (`break`, `crash-after-tool`,
 * `crash-in-tool`) are the demo's own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { convertToModelMessages, stepCountIs, streamText, tool, type UIMessage } from 'ai';
import { journaled } from 'answer-once/ai/server';
import { createIdempotencyHandler, type IdempotencyEventListener, type IdempotencyStore } from 'answer-once/server';
import { z } from 'zod';
import { breakAfterEvents } from '../ai-sdk-chat/faults.js';
import type { DemoModel } from '../ai-sdk-chat/model.js';
import type { Producer } from './producers.js';
import type { Restaurant } from './restaurant.js';
import type { Trouble } from './trouble.js';

/** The `break` fault fails the model's stream after this many events. */
const BREAK_AFTER_EVENTS = 12;
/** How long the restaurant takes to book: time to reload, or crash, while the tool runs. */
const BOOKING_MS = 1_500;
/** The `crash-after-tool` fault kills the producer this many tokens into the answer's second step. */
const CRASH_AFTER_TOKENS = 5;
/**
 * How long a producer holds an intent without renewing it: a crashed one's answer is taken
 * over at most this long after its last heartbeat (10 s by default; short for the demo).
 */
const LEASE_MS = 2_000;

export interface DemoHandlerOptions {
  readonly model: DemoModel;
  readonly restaurant: Restaurant;
  /** The producer this handler runs in, and how to crash it (the crash faults). */
  readonly producer: Producer<IdempotencyStore>;
  readonly crash: () => void;
  /** The trouble switch: a fault that fires sets it back to `none`. */
  readonly faults: { trouble: Trouble };
  readonly onEvent: IdempotencyEventListener;
  /** Next.js's `after`, where there is one. */
  readonly waitUntil?: (work: Promise<unknown>) => void;
}

export function createDemoHandler({ model, restaurant, producer, crash, faults, onEvent, waitUntil }: DemoHandlerOptions) {
  /** Fires `fault` when it is the one armed: once. */
  const fires = (fault: Trouble): boolean => {
    if (faults.trouble !== fault) return false;
    faults.trouble = 'none';
    return true;
  };

  const bookTable = tool({
    description: 'Books a table at the restaurant.',
    inputSchema: z.object({ people: z.number().int().min(1).max(20), time: z.string() }),
    // The person approves the booking before it is made; a denial books nothing.
    needsApproval: true,
    execute: async (request, { abortSignal }) => {
      await sleep(BOOKING_MS, undefined, { signal: abortSignal }); // calling the restaurant
      const booking = restaurant.book(request);
      // The producer dies after the effect, before its outcome is recorded: nobody knows it happened.
      if (fires('crash-in-tool')) crash();
      producer.signal.throwIfAborted();
      return booking;
    },
  });

  return createIdempotencyHandler({
    store: producer.store,
    // A real app takes the scope from its own auth (a session cookie, a verified token),
    // never from a header the client sets. The demo has one anonymous visitor.
    scope: () => ({ user: 'demo-visitor' }),
    statusPath: '/api/status',
    leaseMs: LEASE_MS,
    onEvent,
    ...(waitUntil && { waitUntil }),
    // The turn. `ctx.signal` aborts when the visitor presses Stop (the DELETE on the status
    // route reaches this run wherever it runs); a dropped connection does not stop it.
    handler: async function answer(request, ctx) {
      const { messages } = (await request.json()) as { messages?: UIMessage[] };
      if (!Array.isArray(messages) || messages.length === 0) {
        return Response.json({ title: '`messages` must be a non-empty array.' }, { status: 400 });
      }
      // The person's last message: an approval's answer ends with the assistant's, not theirs.
      const question = (messages.filter((message) => message.role === 'user').at(-1)?.parts ?? [])
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('');
      const demoModel = model.for(question, {
        stepStarted: (step) => {
          if (step === 1 && fires('crash-after-tool')) setTimeout(crash, model.delayMs * CRASH_AFTER_TOKENS);
        },
      });
      // Every model call and tool call a step of the intent's journal: a re-run replays
      // the finished ones. `bookTable` is `repeat: 'never'` (the default): the restaurant
      // takes no key, so a booking whose outcome is unknown is never made again — the
      // model is told it may or may not have happened.
      const agent = journaled(ctx, { model: demoModel, tools: { bookTable } });
      const response = streamText({
        model: agent.model,
        tools: agent.tools,
        messages: await convertToModelMessages(messages),
        stopWhen: stepCountIs(3),
        abortSignal: AbortSignal.any([ctx.signal, producer.signal]),
        // Each approval's id derived from the intent and its tool call: a re-run asks under
        // the id the page already has, so the approval it answered is the one that counts.
        experimental_transform: agent.transform,
        // What the model reported it cost, kept with the answer: every replay counts it as saved.
        onFinish: ({ totalUsage }) =>
          ctx.reportUsage({ inputTokens: totalUsage.inputTokens, outputTokens: totalUsage.outputTokens }),
      }).toUIMessageStreamResponse({
        // One stable id per answer, whichever run or replay carries it: a resumed stream
        // then replaces the partial message the page kept instead of adding a second one.
        // `originalMessages` also makes an approval's answer continue the message that asked.
        originalMessages: messages,
        generateMessageId: agent.generateMessageId,
      });
      return fires('break') ? breakAfterEvents(response, BREAK_AFTER_EVENTS) : response;
    },
  });
}
