import { useEffect, useState, useSyncExternalStore } from 'react';
import {
  SendController,
  type ControllerClient,
  type ControllerSendOptions,
  type SendControllerOptions,
} from '../client/controller.js';
import type { SendState, SendStatus } from '../core/send-state.js';

export interface UseSendOptions extends SendControllerOptions {
  /**
   * On mount, finish the intent a previous page left pending in the client's storage
   * adapter, with its original ID; if it was answered while the page was away, the
   * answer shows with `replayed: true`. Runs once per mounted hook, StrictMode included.
   * @default false
   */
  readonly resume?: boolean;
}

export interface UseSendResult<TData, TJson> {
  /**
   * Sends the intent; resolves with the settled state and never rejects. While a send
   * is in flight it returns that send's promise (a double click is one request); after
   * a failure it resends the same intent with the same `requestId`.
   */
  readonly send: (options?: ControllerSendOptions<TJson>) => Promise<SendState<TData, TJson>>;
  /** Forgets the intent; the next `send()` is a new one with a new ID. */
  readonly reset: () => void;
  readonly state: SendStatus;
  readonly data: TData | undefined;
  /** With `stream`: the answer's text so far while `streaming`, and all of it once answered. */
  readonly text: string | undefined;
  /** The JSON body of the intent (what was asked), while it is sent and after. */
  readonly json: TJson | undefined;
  /** True when the answer was a stored one replayed: show an "already answered" badge. */
  readonly replayed: boolean;
  readonly error: Error | undefined;
  readonly requestId: string | undefined;
  /** 1-based attempt number; while `retrying`, the number of the retry under way. */
  readonly attempt: number;
  /** The client's retry limit, once the first attempt reported it. */
  readonly retryLimit: number | undefined;
  /** The whole state object, for narrowing on `status`. */
  readonly snapshot: SendState<TData, TJson>;
}

/**
 * One user intent at a time through `client`: its state for buttons, spinners and
 * "already answered" badges. A thin subscription to a {@link SendController}.
 *
 * @example
 * const client = createClient({ baseUrl: '/api/', storage: sessionStorageAdapter() });
 *
 * function Chat() {
 *   const chat = useSend<{ answer: string }>(client, 'chat', { resume: true });
 *   return (
 *     <>
 *       <button onClick={() => chat.send({ json: { content: 'Hi' } })}>Send</button>
 *       {chat.state === 'retrying' && `retrying (${chat.attempt}/${chat.retryLimit})…`}
 *       {chat.state === 'waiting' && 'still generating…'}
 *       {chat.data?.answer} {chat.replayed && <Badge>already answered</Badge>}
 *       {chat.state === 'failed' && <button onClick={() => chat.send()}>Try again</button>}
 *     </>
 *   );
 * }
 */
export function useSend<TData = unknown, TJson = unknown>(
  client: ControllerClient,
  input: string,
  options: UseSendOptions = {},
): UseSendResult<TData, TJson> {
  const { resume = false, ...controllerOptions } = options;
  if (typeof resume !== 'boolean') {
    throw new TypeError('answer-once/react: `options.resume` must be a boolean.');
  }
  const [controller] = useState(() => new SendController<TData, TJson>(client, input, controllerOptions));
  useEffect(() => {
    controller.setOptions(client, input, controllerOptions);
  });
  useEffect(() => {
    if (resume) void controller.resume();
  }, [controller, resume]);

  const snapshot = useSyncExternalStore(
    controller.subscribe,
    controller.getSnapshot,
    controller.getSnapshot,
  );
  return {
    send: controller.send,
    reset: controller.reset,
    state: snapshot.status,
    data: snapshot.data,
    text: snapshot.text,
    json: snapshot.json,
    replayed: snapshot.replayed,
    error: snapshot.error,
    requestId: snapshot.requestId,
    attempt: snapshot.attempt,
    retryLimit: snapshot.retryLimit,
    snapshot,
  };
}
