import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { SendController } from '../client/controller/controller.js';
import type {
  ControllerClient,
  ControllerSendOptions,
  SendControllerOptions,
} from '../client/controller/controller-options.js';
import type { SendState } from '../client/controller/send-state.js';
import type { StopResult } from '../client/stop/stop.js';
import { invalidOption } from '../core/options.js';

export interface UseSendOptions extends SendControllerOptions {
  /**
   * On mount, finish the intents a previous page left pending in the client's storage
   * adapter or outbox for this input, one after the other, each with its original ID; one
   * answered while the page was away shows with `replayed: true`. Runs once per mounted
   * hook, StrictMode included.
   * @default false
   */
  readonly resume?: boolean;
}

/** What `useSend` hands back besides the state: the three things a UI does. */
export interface SendActions<TData, TJson> {
  /**
   * Sends the intent; resolves with the settled state and never rejects. While a send
   * is in flight it returns that send's promise (a double click is one request); after
   * a failure it resends the same intent with the same `requestId`.
   */
  readonly send: (options?: ControllerSendOptions<TJson>) => Promise<SendState<TData, TJson>>;
  /** Forgets the intent; the next `send()` is a new one with a new ID. */
  readonly reset: () => void;
  /**
   * Stops the intent in flight on the server (`client.stop`): a streamed answer ends
   * `answered` with exactly the text shown at the stop and `stopped: true` (the server
   * keeps that same text), and stays in the client's storage so a reload with `resume`
   * shows it again, with no model call. Ignored within `stopGuardMs` (default 500 ms) of
   * the send, so a double-click's second click on a Stop in Send's place stops nothing.
   * A stop the server did not confirm resolves `undefined` and sets `stopError` (a
   * `StopNotConfirmedError`); the answer keeps showing as the model writes it.
   */
  readonly stop: () => Promise<StopResult | undefined>;
}

/**
 * The send's state — a union keyed on `status`, so `if (chat.status === 'answered')`
 * narrows `data`, `'failed'` narrows `error`, `'retrying'` narrows `retry` — with
 * `send`, `stop` and `reset` beside it (as TanStack's `useMutation` returns).
 */
export type UseSendResult<TData, TJson> = SendState<TData, TJson> & SendActions<TData, TJson>;

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
 *       {chat.status === 'retrying' && `retrying (${chat.retry.number}/${chat.retryLimit})…`}
 *       {chat.status === 'waiting' && 'still generating…'}
 *       {chat.status === 'answered' && chat.data.answer} {chat.replayed && <Badge>already answered</Badge>}
 *       {chat.status === 'failed' && <button onClick={() => chat.send()}>Try again</button>}
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
  if (typeof resume !== 'boolean') invalidOption('options.resume', 'a boolean', resume, 'answer-once/react');
  const [controller] = useState(() => new SendController<TData, TJson>(client, input, controllerOptions));
  useEffect(() => {
    controller.setOptions(client, input, controllerOptions);
  });
  useEffect(() => {
    if (resume) void controller.resume();
  }, [controller, resume]);

  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot, controller.getSnapshot);
  // The same object until the state changes, so it can sit in an effect's dependencies.
  return useMemo(
    () => ({ ...snapshot, send: controller.send, reset: controller.reset, stop: controller.stop }),
    [snapshot, controller],
  );
}
