/**
 * The demo's API. `POST /api/chat` is the part to copy: `createIdempotencyHandler` whose
 * work is `streamText(…).toUIMessageStreamResponse()`, so each user message runs the
 * model at most once and its answer streams through as it is stored. The status route
 * (`/api/status/<id>`, where `stop()` sends its `DELETE`) is the same handler. The rest
 * is the demo's own: `GET /api/stats` for the footer, `/api/trouble` for the switch
 * (./faults.ts: what each fault does).
 */
import type { HttpBindings } from '@hono/node-server';
import { convertToModelMessages, streamText, type UIMessage } from 'ai';
import { isValidRequestId } from 'answer-once';
import { createIdempotencyHandler, type IdempotencyStore } from 'answer-once/server';
import { breakAfterEvents, cutAfterEvents } from './faults.js';
import { savingsMeter } from '../shared/savings.js';
import type { DemoModel } from './model.js';

type Trouble = 'none' | 'cut' | 'break';

/** The `cut` fault lets this many events of the answer through, then drops the connection. */
const CUT_AFTER_EVENTS = 12;
/** The `break` fault fails the model's stream after this many events. */
const BREAK_AFTER_EVENTS = 12;

export interface Stats {
  /** Model calls made: what the visitor pays for. */
  readonly modelCalls: number;
  /** Distinct intent IDs (user messages) the chat route saw. */
  readonly intents: number;
  /** Requests to the chat route: reconnects and resumes included. */
  readonly requests: number;
  /** Answers whose connection the `cut` fault dropped. */
  readonly cuts: number;
  /** Intents a resend of which was answered without a model call, once each: calls not paid (README, "What it saved"). */
  readonly avoidedCalls: number;
  /** The tokens those answers' model calls cost: tokens not paid again. */
  readonly avoidedTokens: number;
}

export function createChatApi({ model, store }: { model: DemoModel; store: IdempotencyStore }) {
  const intents = new Set<string>();
  let requests = 0;
  let cuts = 0;
  let trouble: Trouble = 'none';
  // Model calls made and avoided, tokens avoided: answer-once/otel's instruments.
  const savings = savingsMeter();

  const chat = createIdempotencyHandler({
    store,
    // A real app takes the scope from its own auth (a session cookie, a verified token),
    // never from a header the client sets. The demo has one anonymous visitor.
    scope: () => ({ user: 'demo-visitor' }),
    statusPath: '/api/status',
    // The model call. `signal` aborts when the visitor presses Stop (the DELETE on the
    // status route reaches this run wherever it runs); a dropped connection does not stop it.
    onEvent: savings.onEvent,
    handler: async function answer(request, { signal, requestId, reportUsage }) {
      const { messages } = (await request.json()) as { messages?: UIMessage[] };
      if (!Array.isArray(messages) || messages.length === 0) {
        return Response.json({ title: '`messages` must be a non-empty array.' }, { status: 400 });
      }
      const last = messages.at(-1)!;
      const question = last.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const result = streamText({
        model: model.for(question),
        messages: await convertToModelMessages(messages),
        abortSignal: signal,
        // What the model reported it cost, kept with the answer: every replay counts it as saved.
        onFinish: ({ totalUsage }) =>
          reportUsage({ inputTokens: totalUsage.inputTokens, outputTokens: totalUsage.outputTokens }),
      });
      const response = result.toUIMessageStreamResponse({
        // One stable id per answer, whichever run or replay carries it: a resumed stream
        // then replaces the partial message the page kept instead of adding a second one.
        originalMessages: messages,
        generateMessageId: () => `answer-${requestId}`,
      });
      if (trouble !== 'break') return response;
      trouble = 'none';
      return breakAfterEvents(response, BREAK_AFTER_EVENTS);
    },
  });

  return async function chatApi(request: Request, env: HttpBindings): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/api/chat' && request.method === 'POST') {
      requests += 1;
      const id = request.headers.get('X-Request-Id') ?? '';
      if (isValidRequestId(id)) intents.add(id);
      const response = await chat(request);
      // The fault hits the next answer that streams (not a replay of a finished one).
      const streaming =
        response.headers.get('content-type')?.includes('text/event-stream') &&
        !response.headers.has('X-Idempotent-Replayed');
      if (trouble !== 'cut' || !streaming) return response;
      trouble = 'none';
      cuts += 1;
      return cutAfterEvents(response, CUT_AFTER_EVENTS, env.incoming.socket);
    }
    if (pathname.startsWith('/api/status/')) return chat(request);
    if (pathname === '/api/stats' && request.method === 'GET') {
      const { avoidedCalls, avoidedTokens } = await savings.read();
      const stats: Stats = { modelCalls: model.calls, intents: intents.size, requests, cuts, avoidedCalls, avoidedTokens };
      return Response.json(stats);
    }
    if (pathname === '/api/trouble' && request.method === 'GET') return Response.json({ trouble });
    if (pathname === '/api/trouble' && request.method === 'PUT') {
      const body = (await request.json().catch(() => ({}))) as { trouble?: unknown };
      if (body.trouble !== 'none' && body.trouble !== 'cut' && body.trouble !== 'break') {
        return Response.json({ title: '`trouble` must be "none", "cut" or "break".' }, { status: 400 });
      }
      trouble = body.trouble;
      return Response.json({ trouble });
    }
    return Response.json({ title: `No route for ${request.method} ${pathname}.` }, { status: 404 });
  };
}
