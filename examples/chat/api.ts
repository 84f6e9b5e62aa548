/**
 * The demo's API: `POST /api/chat` (idempotent, through `answer-once/server`; the answer
 * streams as server-sent events, one per token), the status route the client polls and
 * stops through (`DELETE /api/status/<id>`), `GET /api/stats` (`{ modelCalls, intents,
 * requests, avoidedCalls, avoidedTokens }`: model calls made, distinct intent IDs seen,
 * chat requests received, and what answer-once saved — from its OpenTelemetry metrics),
 * `GET /api/model-log` (what each model call wrote, for the browser tests) and the trouble
 * switch. Faults are applied here, on the server, for real: a lost response is a dropped
 * TCP connection after the answer was stored; a cut stream is the socket destroyed after
 * a few tokens; a 503 is answered before anything runs; a slow model outlasts the
 * gateway's timeout while the work goes on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { HttpBindings } from '@hono/node-server';
import { isValidRequestId } from 'answer-once';
import { createIdempotencyHandler, type IdempotencyStore, withCors } from 'answer-once/server';
import { savingsMeter } from '../shared/savings.js';
import type { FakeModel } from './fake-model.js';
import { cutAfterEvents, tokenEvents } from './stream.js';
import { isTroubleMode, type TroubleMode, TroubleSwitch } from './trouble.js';

export interface ChatApiOptions {
  readonly model: FakeModel;
  readonly store: IdempotencyStore;
  /**
   * How long the gateway in front of the model waits for its first token before
   * answering 504 (the work carries on). Only the `slow` fault makes the model think
   * longer than this.
   * @default 3 × the model's thinking time, at least 1000
   */
  readonly gatewayTimeoutMs?: number;
}

export type ChatApi = (request: Request, env: HttpBindings) => Promise<Response>;

/**
 * How long past the gateway's timeout a `slow` model still thinks: the retry after the 504
 * finds the work running (202, "still generating…") with time to spare, on a busy machine too.
 */
const SLOW_PAST_GATEWAY_MS = 2_000;
/** `cut` lets this many tokens through, then destroys the socket. */
const CUT_AFTER_EVENTS = 8;
/** How long `lose` waits for the answer to be stored before dropping the connection. */
const STORED_WAIT_MS = 10_000;
const MAX_QUESTION_CHARS = 4000;

export function createChatApi(options: ChatApiOptions): ChatApi {
  const { model, store } = options;
  const gatewayTimeoutMs = options.gatewayTimeoutMs ?? Math.max(1000, model.thinkMs * 3);
  // `slow` makes the model think well past the gateway's timeout.
  const slowThinkMs = gatewayTimeoutMs + Math.max(SLOW_PAST_GATEWAY_MS, model.thinkMs * 2);
  const trouble = new TroubleSwitch();
  const intents = new Set<string>();
  let requests = 0;
  // Which fault the request being handled drew; read inside the model handler.
  const drawn = new AsyncLocalStorage<TroubleMode>();
  // Intents whose answer `lose` waits to see stored, by request ID.
  const storedWaiters = new Map<string, () => void>();
  // Model calls made and avoided, tokens avoided: answer-once/otel's instruments.
  const savings = savingsMeter();

  const idempotent = createIdempotencyHandler({
    store,
    // A real app takes these from its own auth (a session cookie, a bearer token):
    // never from a header the client sets. The demo has a single anonymous visitor.
    scope: () => ({ user: 'demo-visitor', session: 'demo' }),
    statusPath: '/api/status',
    // The model call: the only work that costs. `signal` fires on a stop (the page's Stop
    // button) or if another worker took this intent over; a client disconnect does NOT
    // stop it (its answer is kept). The tokens stream through as they are stored.
    handler: async function chat(request, { signal, reportUsage }) {
      const question = await readQuestion(request);
      if (typeof question !== 'string') return question;
      const slow = drawn.getStore() === 'slow';
      const { tokens } = await model.stream(question, { ...(slow && { thinkMs: slowThinkMs }), signal, reportUsage });
      return tokenEvents(tokens);
    },
    onEvent(event) {
      savings.onEvent(event);
      if (event.type === 'completed') storedWaiters.get(event.requestId)?.();
    },
  });

  async function sendChat(request: Request): Promise<Response> {
    requests += 1;
    const id = (request.headers.get('X-Request-Id') ?? request.headers.get('Idempotency-Key') ?? '')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (isValidRequestId(id)) intents.add(id);
    const mode = trouble.take();
    if (mode === '503') {
      return problem(503, 'The model gateway is overloaded (simulated). Retry with the same ID.', {
        'Retry-After': '1',
      });
    }
    const stored = mode === 'lose' ? storedOnce(id) : undefined;
    const work = drawn.run(mode, () => idempotent(request));
    const response = await withGatewayTimeout(work, gatewayTimeoutMs);
    const socket = bindings.get(request)?.incoming.socket;
    if (mode === 'cut') return cutAfterEvents(response, CUT_AFTER_EVENTS, () => socket?.destroy());
    if (mode !== 'lose') return response;
    // The answer is produced and stored; now the "network" loses it on the way back: the
    // connection closes before a single byte of the response is written.
    await response.arrayBuffer().catch(() => undefined);
    await stored;
    socket?.destroy();
    return new Response(null, { status: 204 }); // written nowhere: the socket is gone
  }

  /** Resolves once the intent's answer is stored (or after a while, whatever happened). */
  function storedOnce(requestId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, STORED_WAIT_MS);
      function done() {
        clearTimeout(timer);
        storedWaiters.delete(requestId);
        resolve();
      }
      storedWaiters.set(requestId, done);
    });
  }

  async function route(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/api/chat' && request.method === 'POST') return sendChat(request);
    if (pathname.startsWith('/api/status/')) return idempotent(request);
    if (pathname === '/api/stats' && request.method === 'GET') {
      const { avoidedCalls, avoidedTokens } = await savings.read();
      return json({ modelCalls: model.calls, intents: intents.size, requests, avoidedCalls, avoidedTokens });
    }
    if (pathname === '/api/model-log' && request.method === 'GET') return json({ calls: model.log });
    if (pathname === '/api/trouble' && request.method === 'GET') return json({ mode: trouble.next });
    if (pathname === '/api/trouble' && request.method === 'PUT') {
      const body: unknown = await request.json().catch(() => undefined);
      const mode = (body as { mode?: unknown } | undefined)?.mode;
      if (!isTroubleMode(mode)) return problem(400, '`mode` must be none, lose, cut, 503 or slow.');
      trouble.arm(mode);
      return json({ mode });
    }
    return problem(404, `No route for ${request.method} ${pathname}.`);
  }

  // Every route works cross-origin; the protocol's headers are exposed to scripts.
  const routeWithCors = withCors(route, { methods: ['GET', 'POST', 'PUT', 'DELETE'] });
  // node:http's objects of each request, for the `lose` and `cut` faults to drop the connection.
  const bindings = new WeakMap<Request, HttpBindings>();
  return function chatApi(request, env) {
    bindings.set(request, env);
    return routeWithCors(request);
  };
}

async function readQuestion(request: Request): Promise<string | Response> {
  const body: unknown = await request.json().catch(() => undefined);
  const content = (body as { content?: unknown } | undefined)?.content;
  if (typeof content !== 'string' || content.trim() === '' || content.length > MAX_QUESTION_CHARS) {
    return problem(400, `\`content\` must be a non-empty string of at most ${MAX_QUESTION_CHARS} characters.`);
  }
  return content;
}

/** The gateway gives up after `ms` without the model's first token (a 504); the work behind it keeps running. */
async function withGatewayTimeout(work: Promise<Response>, ms: number): Promise<Response> {
  work.catch(() => undefined); // a rejection after the timeout won is the handler's to log
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Response>((resolve) => {
    timer = setTimeout(() => resolve(problem(504, 'The gateway timed out waiting for the model.')), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function json(body: unknown): Response {
  return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
}

function problem(status: number, detail: string, headers: Record<string, string> = {}): Response {
  return Response.json(
    { type: 'about:blank', title: detail, status, detail },
    { status, headers: { 'Content-Type': 'application/problem+json', ...headers } },
  );
}
