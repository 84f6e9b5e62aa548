/**
 * The recipe: ONE `createIdempotencyHandler` serves the chat route (`app/api/chat`) and
 * its status route (`app/api/status/[id]`, where Stop sends its DELETE). `waitUntil: after`
 * hands what a request keeps doing after its answer — the model streaming into the store
 * while the visitor is gone, the record's write, the lease's heartbeats — to Next.js, so
 * a closed tab never ends the work on a serverless host (Vercel keeps the function alive
 * until it settles; `next start` runs it anyway).
 */
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { createIdempotencyHandler } from 'answer-once/server';
import { after } from 'next/server';
import { breakAfterEvents } from '../../ai-sdk-chat/faults';
import { demo } from './demo';
import { store } from './store';

/** The `break` fault fails the model's stream after this many events. */
const BREAK_AFTER_EVENTS = 12;

export const handle = createIdempotencyHandler({
  store,
  waitUntil: after,
  statusPath: '/api/status',
  // A real app takes the scope from its own auth (a session cookie, a verified token),
  // never from a header the client sets. The demo has one anonymous visitor.
  scope: () => ({ user: 'demo-visitor' }),
  // The footer's savings: model calls and tokens avoided (answer-once/otel's instruments).
  onEvent: demo.savings.onEvent,
  // The model call. `signal` aborts on Stop (the DELETE reaches this run wherever it
  // runs); a dropped connection does not stop it.
  handler: async function answer(request, { signal, requestId, reportUsage }) {
    const { messages } = (await request.json()) as { messages?: UIMessage[] };
    if (!Array.isArray(messages) || messages.length === 0) {
      return Response.json({ title: '`messages` must be a non-empty array.' }, { status: 400 });
    }
    const question = messages
      .at(-1)!
      .parts.map((part) => (part.type === 'text' ? part.text : ''))
      .join('');
    const result = streamText({
      model: demo.model.for(question),
      messages: await convertToModelMessages(messages),
      abortSignal: signal,
      // What the model reported it cost, kept with the answer: every replay counts it as saved.
      onFinish: ({ totalUsage }) =>
        reportUsage({ inputTokens: totalUsage.inputTokens, outputTokens: totalUsage.outputTokens }),
    });
    const response = result.toUIMessageStreamResponse({
      // One stable id per answer: a resumed stream replaces the partial message the page
      // kept instead of adding a second one.
      originalMessages: messages,
      generateMessageId: () => `answer-${requestId}`,
    });
    if (demo.trouble !== 'break') return response;
    demo.trouble = 'none';
    return breakAfterEvents(response, BREAK_AFTER_EVENTS);
  },
});
