/**
 * `answerOnceTransport()`: a `ChatTransport` for the AI SDK's `useChat`, over the
 * client's streamed sends (`client.fetch`'s). Each submitted user message is one intent
 * keyed by the message's id and its payload (./intent-id.ts), so sending it twice is one
 * model call and an edit is a new intent; a request that continues the assistant's
 * message (answers to tool approvals, tool outputs the page ran) takes `toolAnswers`
 * (./tool-answers.ts); an intent the server will not run again (`intent-exhausted`) is final, and sending that message again is a new intent; its
 * stream resumes itself after a drop (the resumable body); after a reload
 * `reconnectToStream` finds the chat's pending intent in the client's storage and
 * replays it from the server's log (no `activeStreamId` to keep); concurrent resumes of
 * one intent share one request; aborting a submitted message's stream (`stop()`) stops
 * the generation on the server (PROTOCOL.md § 14.8), and a stop the server did not
 * confirm reaches `onStopError`'s listeners; an edit or a regenerate while an answer
 * streams supersedes it (./chat-turn.ts).
 */
import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai';
import type { AnswerOnceClient } from '../client/client.js';
import { isResponseError } from '../client/errors/guards.js';
import { endsIntent } from '../client/send/problem-error.js';
import { clientStop } from '../client/stop/client-stop.js';
import { confirmRunning } from '../client/stop/confirm-stop.js';
import { DEFAULT_STOP_GUARD_MS } from '../client/stop/stop-guard.js';
import type { StoredIntent } from '../client/storage/types.js';
import { streamingOpen } from '../client/stream/streaming-open.js';
import { newRequestId } from '../core/ids.js';
import { invalidOption, timerOption } from '../core/options.js';
import { DEFAULT_STATUS_PATH } from '../core/status-path.js';
import { ChunkBroadcast } from './broadcast.js';
import { ChatTurn } from './chat-turn.js';
import { userIntentId } from './intent-id.js';
import type { ToolAnswers, ToolAnswersCapability } from './tool-answers.js';
import { uiMessageChunks } from './ui-chunks.js';

type Trigger = 'submit-message' | 'regenerate-message';

/** What `requestId` is asked for: one submitted request of the chat. */
export interface RequestIdContext<UI_MESSAGE extends UIMessage = UIMessage> {
  readonly chatId: string;
  readonly trigger: Trigger;
  readonly messageId: string | undefined;
  readonly messages: readonly UI_MESSAGE[];
  /** The request body as it will be sent (JSON). */
  readonly payload: string;
}

export interface AnswerOnceTransportOptions<UI_MESSAGE extends UIMessage = UIMessage> {
  /** The client `createClient` made: its sends (retries, resumable bodies, storage) carry every request. */
  client: AnswerOnceClient;
  /**
   * The chat route (a `createIdempotencyHandler` whose work returns
   * `streamText(…).toUIMessageStreamResponse()`), resolved as `client.fetch` resolves it.
   * @default '/api/chat'
   */
  api?: string;
  /**
   * The server's status route: a stop is `DELETE <statusPath>/<requestId>`, resolved
   * against the chat route's URL.
   * @default '/api/status'
   */
  statusPath?: string;
  /**
   * Headers of every request (after the client's own). They are stored with a pending
   * intent when the client has `storage`: keep credentials in the client's hooks.
   * @default undefined
   */
  headers?: Record<string, string>;
  /**
   * Extra JSON properties of every request body.
   * @default undefined
   */
  body?: Record<string, unknown>;
  /**
   * Milliseconds after a message is sent during which a stop is ignored: the second click
   * of a double-click (100–200 ms apart for a person) lands on a Stop button that took
   * Send's place, and must not stop what the first click started. Within it, an aborted
   * stream does not stop the generation on the server, and {@link AnswerOnceTransport.guardStop}'s
   * stop does not abort it. `0` turns the guard off.
   * @default 500
   */
  stopGuardMs?: number;
  /**
   * What a chat whose page answers its model's tools needs — approvals
   * (`addToolApprovalResponse`) and outputs the page ran (`addToolOutput`): `import {
   * toolAnswers } from 'answer-once/ai'`. Each request that answers approvals is then one
   * intent keyed by them (the tool runs once however many tabs answer; a tab whose answer
   * came second shows the first one's outcome), and a reload resumes such a request onto
   * the whole assistant message. Without it, the transport bundles none of this and
   * refuses a request that continues the assistant's message, naming this option.
   * @default undefined
   */
  toolAnswers?: ToolAnswers;
  /**
   * The intent ID of one submitted request; `undefined` mints a new one. Keep an edit
   * (the AI SDK resends a message under its id with new text) a new intent.
   * @default for a submitted user message, its id (when it is 8–128 of `[A-Za-z0-9_-]`) joined with a digest of the payload; for answers to tool approvals (with `toolAnswers`), the first approval's id joined with a digest of every one answered; else a new one
   */
  requestId?: (context: RequestIdContext<UI_MESSAGE>) => string | undefined;
}

/** `<statusPath>/<requestId>`, resolved against `base` (the chat route's answer URL) when known, else as `client.fetch` resolves it. */
function statusUrl(statusPath: string, requestId: string, base: string): string {
  const path = `${statusPath}/${encodeURIComponent(requestId)}`;
  return base ? new URL(path, base).href : path;
}

/** The chat a stored intent belongs to: the `id` of its JSON body. */
function chatOf(intent: StoredIntent): string | undefined {
  try {
    const id = (JSON.parse(intent.body ?? '') as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Which stop a {@link StopErrorListener} hears of. */
export interface StopErrorContext {
  readonly chatId: string;
  /** The intent the stop was for. */
  readonly requestId: string;
  /** `stop`: useChat's `stop()` aborted the answer; `superseded`: an edit or a regenerate replaced it. */
  readonly reason: 'stop' | 'superseded';
}

/**
 * Hears of a stop the server did not confirm. `error` is the client's
 * `StopNotConfirmedError` (`isStopNotConfirmedError`): its `status` (405 from a route
 * without `DELETE`…) and a message naming the likely cause. The answer goes on on the
 * server — and is paid for — though useChat shows it stopped.
 */
export type StopErrorListener = (error: Error, stop: StopErrorContext) => void;

/** The transport, and the guard a Stop button needs. */
export interface AnswerOnceTransport<UI_MESSAGE extends UIMessage = UIMessage> extends ChatTransport<UI_MESSAGE> {
  /**
   * `useChat`'s `stop`, guarded: called within `stopGuardMs` of the last message sent
   * through this transport, it does nothing (the answer goes on and shows), so a Stop
   * button in Send's place survives a double-click. `<button onClick={transport.guardStop(stop)}>`.
   */
  guardStop(stop: () => Promise<void>): () => Promise<void>;
  /**
   * Calls `listener` for every stop the server did not confirm (useChat's `stop()` returns
   * before the stop's answer, and shows the answer stopped whatever it was). Returns the
   * unsubscribe function: `useEffect(() => transport.onStopError(setStopError), [])`. With
   * no listener, such a stop is reported on `console.error`.
   */
  onStopError(listener: StopErrorListener): () => void;
}

export function answerOnceTransport<UI_MESSAGE extends UIMessage = UIMessage>(
  options: AnswerOnceTransportOptions<UI_MESSAGE>,
): AnswerOnceTransport<UI_MESSAGE> {
  if (typeof options !== 'object' || options === null) invalidOption('options', 'an object', options);
  const { client, api = '/api/chat', statusPath = DEFAULT_STATUS_PATH, headers = {}, body = {} } = options;
  // Streaming comes with the transport: a client made without it still streams here.
  const send =
    (typeof client === 'object' && client !== null && streamingOpen(client)) ||
    invalidOption('client', 'a client made by createClient', client);
  // And so does stopping: a client made without `stopping` still stops here.
  const stopIntent = clientStop(client);
  if (typeof api !== 'string' || api === '') invalidOption('api', 'a URL', api);
  if (typeof statusPath !== 'string' || !statusPath.startsWith('/'))
    invalidOption('statusPath', 'a path starting with "/"', statusPath);
  const tools = options.toolAnswers as ToolAnswersCapability | undefined;
  if (tools !== undefined && typeof tools?.continuing !== 'function')
    invalidOption('toolAnswers', "answer-once/ai's toolAnswers", tools, 'answer-once/ai');
  const idOf =
    options.requestId ??
    (({ trigger, messages, payload }: RequestIdContext<UI_MESSAGE>) =>
      trigger !== 'submit-message' ? undefined : (userIntentId(messages, payload) ?? tools?.intentId(messages.at(-1))));
  const stopGuardMs = timerOption(options.stopGuardMs ?? DEFAULT_STOP_GUARD_MS, 'stopGuardMs', 0, 'answer-once/ai');
  /** When the last message was sent: a stop sooner than `stopGuardMs` after it is a double-click's second click. */
  let sentAt = Number.NEGATIVE_INFINITY;
  const guarded = (since: number) => Date.now() - since < stopGuardMs;

  /** Intents this transport is reading, by ID: one request each, however many readers. */
  const inflight = new Map<string, Promise<ChunkBroadcast>>();
  /** Chats with a storage look-up under way, so concurrent resumes share it. */
  const lookups = new Map<
    string,
    Promise<{ requestId: string; broadcast: ChunkBroadcast; continues: UIMessage | undefined } | null>
  >();
  /** Resumes started per chat: an abort followed by a newer resume is a superseded one, not a stop. */
  const resumes = new Map<string, number>();
  const stopUrls = new Map<string, string>();
  /** Intents the server will not run again: sending the same message again takes a new ID. */
  const exhausted = new Set<string>();
  /** The submitted request each chat reads now (./chat-turn.ts). */
  const turns = new Map<string, ChatTurn>();
  const stopErrorListeners = new Set<StopErrorListener>();

  /**
   * The answer of intent `requestId`, read once however many readers. `approvals`: the
   * tool approvals the request answers, when they name its intent (./tool-answers.ts) — if
   * another tab answered them first, and otherwise (`request-id-reused`), that answer's
   * outcome is this one's too, read from the status route.
   */
  function open(
    requestId: string,
    init: { headers: HeadersInit; body: string; approvals?: ReadonlyMap<string, string> },
  ): Promise<ChunkBroadcast> {
    let started = inflight.get(requestId);
    if (started) return started;
    started = (async () => {
      const headers = new Headers(init.headers);
      headers.set('content-type', 'application/json');
      const { approvals } = init;
      let response: Response;
      let second = false;
      try {
        try {
          response = await send(api, { method: 'POST', headers, body: init.body, requestId });
        } catch (error) {
          // 422: `request-id-reused`, the protocol's only one (an app's own 422 comes back from the status route as it was).
          if (!approvals || !isResponseError(error) || error.status !== 422) throw error;
          second = true;
          response = await send(statusUrl(statusPath, requestId, error.response.url), { method: 'GET', headers, requestId });
        }
      } catch (error) {
        if (endsIntent(error)) exhausted.add(requestId);
        throw error;
      }
      if (!response.body) throw new Error('answer-once: the chat route answered without a body.');
      if (response.url) stopUrls.set(requestId, statusUrl(statusPath, requestId, response.url));
      const chunks = uiMessageChunks(response.body, requestId);
      const broadcast = new ChunkBroadcast(approvals && second ? tools!.firstAnswers(chunks, approvals) : chunks);
      void broadcast.done.finally(() => {
        // Final mid-answer too (a reconnect answered `intent-exhausted`).
        if (endsIntent(broadcast.error)) exhausted.add(requestId);
        if (inflight.get(requestId) === started) inflight.delete(requestId);
      });
      return broadcast;
    })();
    inflight.set(requestId, started);
    started.catch(() => {
      if (inflight.get(requestId) === started) inflight.delete(requestId);
    });
    return started;
  }

  /**
   * `client.stop`: marks the intent stopped in the client's storage before its DELETE
   * leaves, so the record outlives the stream's end and a reload's `reconnectToStream`
   * replays the stopped partial answer (no model call) instead of finding nothing. `at`
   * is the position of the last chunk useChat took: the server ends the stored answer
   * there, so a reload shows exactly the text on screen when Stop was pressed. A stop the
   * server did not confirm goes to the `onStopError` listeners.
   */
  async function stop(requestId: string, at: string | undefined, context: StopErrorContext): Promise<void> {
    const url = stopUrls.get(requestId);
    try {
      await confirmRunning(stopIntent(requestId, { ...(url && { url }), ...(at && { at }) }));
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error), { cause: error });
      if (stopErrorListeners.size === 0) console.error(failure);
      for (const listener of stopErrorListeners) listener(failure, context);
    }
  }

  /**
   * One reader of `broadcast`. Its abort stops the intent on the server at the last chunk
   * it took — unless a newer resume of the chat started after `resumesAtStart` (what this
   * reader's request saw): useChat aborts a resume that a newer one replaces (StrictMode's
   * second mount), and that abort may come before this reader exists; nor within
   * `stopGuardMs` of the send that started it (`startedAt`). A submitted request's reader
   * (`turn`) is also stopped, and hushed, when a newer turn supersedes it.
   */
  function read(
    broadcast: ChunkBroadcast,
    requestId: string,
    chatId: string,
    resumesAtStart: number,
    signal: AbortSignal | undefined,
    turn?: { readonly turn: ChatTurn; readonly startedAt: number },
  ): ReadableStream<UIMessageChunk> {
    const { stream, position, hush, ended } = broadcast.subscribe();
    let stopped = false;
    const stopOnce = (at: string | undefined, reason: StopErrorContext['reason']) => {
      if (stopped) return;
      stopped = true;
      void stop(requestId, at, { chatId, requestId, reason });
    };
    turn?.turn.endWith(ended);
    turn?.turn.onSuperseded((successor) => {
      // An edit is no double-click: no guard.
      stopOnce(position(), 'superseded');
      hush(successor.ended);
    });
    if (signal) {
      const onAbort = () => {
        const at = position(); // useChat reads no further
        void stream.cancel().catch(() => undefined);
        if (guarded(turn?.startedAt ?? Number.NEGATIVE_INFINITY)) return; // a double-click's second click: the answer goes on
        // A resume that replaces this one starts in the same turn: look after it.
        setTimeout(() => {
          if ((resumes.get(chatId) ?? 0) === resumesAtStart) stopOnce(at, 'stop');
        }, 0);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void broadcast.done.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => undefined);
    }
    return stream;
  }

  return {
    // A resume re-sends the intent without a position: the log from its start.
    resumeStreamIsReplay: true,

    onStopError(listener) {
      if (typeof listener !== 'function') invalidOption('listener', 'a function', listener, 'answer-once/ai');
      stopErrorListeners.add(listener);
      return () => void stopErrorListeners.delete(listener);
    },

    guardStop(chatStop) {
      if (typeof chatStop !== 'function') invalidOption('stop', "useChat's stop function", chatStop, 'answer-once/ai');
      return async () => {
        if (!guarded(sentAt)) await chatStop();
      };
    },

    async sendMessages({ chatId, messages, trigger, messageId, abortSignal, headers: extra, body: more }) {
      const startedAt = Date.now();
      sentAt = startedAt;
      const payload = JSON.stringify({ ...body, ...more, id: chatId, messages, trigger, messageId });
      const chosen = idOf({ chatId, messages, trigger, messageId, payload });
      const requestId = chosen === undefined || exhausted.has(chosen) ? newRequestId() : chosen;
      const last = messages.at(-1);
      if (last?.role === 'assistant' && !tools) {
        throw new TypeError(
          "answer-once/ai: a request that continues the assistant's message (tool approvals, tool outputs) needs `answerOnceTransport({ toolAnswers })`.",
        );
      }
      const answered = tools?.answered(last);
      const approvals = requestId === chosen && answered?.size ? answered : undefined;
      const merged = new Headers(headers);
      for (const [name, value] of new Headers(extra)) merged.set(name, value);
      const resumesAtStart = resumes.get(chatId) ?? 0;
      // An edit or a regenerate rewrites the history the answer in flight answers: it is superseded.
      const turn = new ChatTurn(requestId);
      const previous = turns.get(chatId);
      const rewrites = trigger === 'regenerate-message' || messageId !== undefined;
      if (previous && previous.requestId !== requestId && rewrites) previous.supersede(turn);
      turns.set(chatId, turn);
      // Current until its answer ended: a stop the guard ignored leaves it running, and an edit then stops it.
      const done = () => turns.get(chatId) === turn && turns.delete(chatId);
      let broadcast: ChunkBroadcast;
      try {
        broadcast = await open(requestId, { headers: merged, body: payload, approvals });
      } catch (error) {
        done();
        turn.endWith();
        throw error;
      }
      void broadcast.done.finally(done).catch(() => undefined);
      return read(broadcast, requestId, chatId, resumesAtStart, abortSignal, { turn, startedAt });
    },

    async reconnectToStream({ chatId, abortSignal }) {
      const resumesAtStart = (resumes.get(chatId) ?? 0) + 1;
      resumes.set(chatId, resumesAtStart);
      let lookup = lookups.get(chatId);
      if (!lookup) {
        lookup = (async () => {
          const stored = await client.pending(api, (intent) => chatOf(intent) === chatId);
          if (!stored) return null;
          const broadcast = await open(stored.requestId, {
            headers: stored.headers.map(([k, v]) => [k, v] as [string, string]),
            body: stored.body ?? '',
          });
          return { requestId: stored.requestId, broadcast, continues: tools?.continuedMessage(stored.body) };
        })();
        lookups.set(chatId, lookup);
        void lookup.finally(() => lookups.delete(chatId)).catch(() => undefined);
      }
      const found = await lookup;
      if (!found) return null;
      const answer = read(found.broadcast, found.requestId, chatId, resumesAtStart, abortSignal);
      return found.continues ? tools!.continuing(answer, found.continues) : answer;
    },
  };
}
