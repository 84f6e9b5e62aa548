/**
 * `answerOnceTransport()`: a `ChatTransport` for the AI SDK's `useChat`, over
 * `client.fetch`. Each submitted user message is one intent keyed by the message's id,
 * so sending it twice is one model call; its stream resumes itself after a drop (the
 * resumable body); after a reload `reconnectToStream` finds the chat's pending intent
 * in the client's storage and replays it from the server's log (no `activeStreamId` to
 * keep); concurrent resumes of one intent share one request; aborting a submitted
 * message's stream (`stop()`) stops the generation on the server (PROTOCOL.md § 14.8).
 */
import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai';
import { newRequestId } from '../core/ids.js';
import { isValidRequestId } from '../core/request-id.js';
import { invalidOption, timerOption } from '../core/options.js';
import { DEFAULT_STOP_GUARD_MS } from '../core/stop-guard.js';
import { REQUEST_ID_HEADER } from '../core/headers.js';
import { DEFAULT_STATUS_PATH } from '../core/status-path.js';
import type { AnswerOnceClient } from '../client/client.js';
import type { StoredIntent } from '../client/storage/types.js';
import { ChunkBroadcast } from './broadcast.js';
import { uiMessageChunks } from './ui-chunks.js';

type Trigger = 'submit-message' | 'regenerate-message';

/** What `requestId` is asked for: one submitted request of the chat. */
export interface RequestIdContext<UI_MESSAGE extends UIMessage = UIMessage> {
  readonly chatId: string;
  readonly trigger: Trigger;
  readonly messageId: string | undefined;
  readonly messages: readonly UI_MESSAGE[];
}

export interface AnswerOnceTransportOptions<UI_MESSAGE extends UIMessage = UIMessage> {
  /** The answer-once client whose `fetch` (retries, resumable bodies, storage) carries every request. */
  client: Pick<AnswerOnceClient, 'fetch' | 'pending' | 'stop'>;
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
   * The intent ID of one submitted request; `undefined` mints a new one.
   * @default the last message's id when it is a user message and a valid ID (8–128 of `[A-Za-z0-9_-]`), else a new one
   */
  requestId?: (context: RequestIdContext<UI_MESSAGE>) => string | undefined;
}

function defaultRequestId({ trigger, messages }: RequestIdContext): string | undefined {
  const last = messages.at(-1);
  if (trigger !== 'submit-message' || last?.role !== 'user') return undefined;
  return isValidRequestId(last.id) ? last.id : undefined;
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

async function failure(response: Response): Promise<Error> {
  const text = await response.text().catch(() => '');
  return new Error(`answer-once: the chat route answered ${response.status}${text ? `: ${text.slice(0, 500)}` : ''}`);
}

/** The transport, and the guard a Stop button needs. */
export interface AnswerOnceTransport<UI_MESSAGE extends UIMessage = UIMessage> extends ChatTransport<UI_MESSAGE> {
  /**
   * `useChat`'s `stop`, guarded: called within `stopGuardMs` of the last message sent
   * through this transport, it does nothing (the answer goes on and shows), so a Stop
   * button in Send's place survives a double-click. `<button onClick={transport.guardStop(stop)}>`.
   */
  guardStop(stop: () => Promise<void>): () => Promise<void>;
}

export function answerOnceTransport<UI_MESSAGE extends UIMessage = UIMessage>(
  options: AnswerOnceTransportOptions<UI_MESSAGE>,
): AnswerOnceTransport<UI_MESSAGE> {
  if (typeof options !== 'object' || options === null) invalidOption('options', 'an object', options);
  const { client, api = '/api/chat', statusPath = DEFAULT_STATUS_PATH, headers = {}, body = {} } = options;
  if (typeof client?.fetch !== 'function') invalidOption('client', 'an answer-once client', client);
  if (typeof api !== 'string' || api === '') invalidOption('api', 'a URL', api);
  if (typeof statusPath !== 'string' || !statusPath.startsWith('/'))
    invalidOption('statusPath', 'a path starting with "/"', statusPath);
  const idOf = options.requestId ?? defaultRequestId;
  const stopGuardMs = timerOption(options.stopGuardMs ?? DEFAULT_STOP_GUARD_MS, 'stopGuardMs', 0, 'answer-once/ai');
  /** When the last message was sent: a stop sooner than `stopGuardMs` after it is a double-click's second click. */
  let sentAt = Number.NEGATIVE_INFINITY;
  const guarded = (since: number) => Date.now() - since < stopGuardMs;

  /** Intents this transport is reading, by ID: one request each, however many readers. */
  const inflight = new Map<string, Promise<ChunkBroadcast>>();
  /** Chats with a storage look-up under way, so concurrent resumes share it. */
  const lookups = new Map<string, Promise<{ requestId: string; broadcast: ChunkBroadcast } | null>>();
  /** Resumes started per chat: an abort followed by a newer resume is a superseded one, not a stop. */
  const resumes = new Map<string, number>();
  const stopUrls = new Map<string, string>();

  function open(requestId: string, init: { headers: HeadersInit; body: string }): Promise<ChunkBroadcast> {
    let started = inflight.get(requestId);
    if (started) return started;
    started = (async () => {
      const request = new Headers(init.headers);
      request.set('content-type', 'application/json');
      request.set(REQUEST_ID_HEADER, requestId);
      const response = await client.fetch(api, { method: 'POST', headers: request, body: init.body });
      if (!response.ok) throw await failure(response);
      if (!response.body) throw new Error('answer-once: the chat route answered without a body.');
      if (response.url)
        stopUrls.set(requestId, new URL(`${statusPath}/${encodeURIComponent(requestId)}`, response.url).href);
      const broadcast = new ChunkBroadcast(uiMessageChunks(response.body, requestId));
      void broadcast.done.finally(() => {
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
   * there, so a reload shows exactly the text on screen when Stop was pressed.
   */
  async function stop(requestId: string, at: string | undefined): Promise<void> {
    const url = stopUrls.get(requestId);
    await client.stop(requestId, { ...(url && { url }), ...(at && { at }) }).catch(() => undefined);
  }

  /**
   * One reader of `broadcast`. Its abort stops the intent on the server at the last chunk
   * it took — unless a newer resume of the chat started after `resumesAtStart` (what this
   * reader's request saw): useChat aborts a resume that a newer one replaces (StrictMode's
   * second mount), and that abort may come before this reader exists; nor within
   * `stopGuardMs` of the send that started it (`startedAt`).
   */
  function read(
    broadcast: ChunkBroadcast,
    requestId: string,
    chatId: string,
    resumesAtStart: number,
    signal: AbortSignal | undefined,
    startedAt = Number.NEGATIVE_INFINITY,
  ): ReadableStream<UIMessageChunk> {
    const { stream, position } = broadcast.subscribe();
    if (signal) {
      const onAbort = () => {
        const at = position(); // useChat reads no further
        void stream.cancel().catch(() => undefined);
        if (guarded(startedAt)) return; // a double-click's second click: the answer goes on
        // A resume that replaces this one starts in the same turn: look after it.
        setTimeout(() => {
          if ((resumes.get(chatId) ?? 0) === resumesAtStart) void stop(requestId, at);
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

    guardStop(chatStop) {
      if (typeof chatStop !== 'function') invalidOption('stop', "useChat's stop function", chatStop, 'answer-once/ai');
      return async () => {
        if (!guarded(sentAt)) await chatStop();
      };
    },

    async sendMessages({ chatId, messages, trigger, messageId, abortSignal, headers: extra, body: more }) {
      const startedAt = Date.now();
      sentAt = startedAt;
      const requestId = idOf({ chatId, messages, trigger, messageId }) ?? newRequestId();
      const payload = JSON.stringify({ ...body, ...more, id: chatId, messages, trigger, messageId });
      const merged = new Headers(headers);
      for (const [name, value] of new Headers(extra)) merged.set(name, value);
      const resumesAtStart = resumes.get(chatId) ?? 0;
      const broadcast = await open(requestId, { headers: merged, body: payload });
      return read(broadcast, requestId, chatId, resumesAtStart, abortSignal, startedAt);
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
          return { requestId: stored.requestId, broadcast };
        })();
        lookups.set(chatId, lookup);
        void lookup.finally(() => lookups.delete(chatId)).catch(() => undefined);
      }
      const found = await lookup;
      if (!found) return null;
      return read(found.broadcast, found.requestId, chatId, resumesAtStart, abortSignal);
    },
  };
}
