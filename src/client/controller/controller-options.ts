/**
 * The controller's options and their checks: what `new SendController()`, `setOptions()`
 * and `useSend()` accept, refused with a `TypeError` that names the option.
 */
import { invalidOption, optionsObject, stringOption, timerOption } from '../../core/options.js';
import type { AnswerOnceClient } from '../client.js';
import type { SendOptions } from '../send/send-options.js';
import { DEFAULT_STOP_GUARD_MS } from '../stop/stop-guard.js';
import { defaultStreamText, type StreamText } from './read-streamed.js';

/**
 * What the controller needs from a client: `createClient()`'s result, or any object with
 * its `send` (and, for `resume()`, its `pending` and `resend`).
 */
export type ControllerClient = Pick<AnswerOnceClient, 'send'> &
  Partial<Pick<AnswerOnceClient, 'pending' | 'resend' | 'stream' | 'stop'>>;

/**
 * The per-send options the controller passes to `client.send` (json, headers, signal,
 * onEvent…). `requestId` and `intentKey` are the controller's to set.
 */
export interface ControllerSendOptions<TJson = unknown> extends Omit<SendOptions, 'json' | 'requestId' | 'intentKey'> {
  /**
   * The body, sent as JSON; kept in the state as `json` (what the user asked).
   * @default undefined
   */
  readonly json?: TJson;
}

export interface SendControllerOptions {
  /**
   * Request options used by every send of this controller (for example `headers`);
   * the options passed to `send()` are merged over them.
   * @default {}
   */
  readonly request?: ControllerSendOptions<unknown>;
  /**
   * Stream the answer (`client.stream`): the state is `streaming` with `text` so far
   * while it arrives, then `answered` with the whole text as `data`; a restart on the
   * server empties `text`. A function picks each part's text (default: a body's text,
   * and the `data` of events without a type); `resume()` resumes as a stream too.
   * @default false
   */
  readonly stream?: boolean | StreamText;
  /**
   * Milliseconds after a `send()` during which `stop()` is ignored: the second click of a
   * double-click (100–200 ms apart for a person) lands on a Stop button that took Send's
   * place, and must not stop what the first click started. `0` turns the guard off.
   * @default 500
   */
  readonly stopGuardMs?: number;
}

export function normalizeControllerOptions(options: SendControllerOptions): {
  request: ControllerSendOptions<unknown>;
  stream: StreamText | undefined;
  stopGuardMs: number;
} {
  const request = optionsObject(optionsObject(options, 'options').request, 'options.request');
  if ('requestId' in request && request.requestId !== undefined) {
    invalidOption('options.request.requestId', 'left out: the controller mints one ID per intent', request.requestId);
  }
  const { stream = false } = options;
  if (typeof stream !== 'boolean' && typeof stream !== 'function') {
    throw new TypeError('answer-once: `options.stream` must be a boolean or a function of a stream part.');
  }
  const stopGuardMs = timerOption(options.stopGuardMs ?? DEFAULT_STOP_GUARD_MS, 'options.stopGuardMs');
  return { request, stream: stream === true ? defaultStreamText : stream || undefined, stopGuardMs };
}

export function validateClient(client: ControllerClient): ControllerClient {
  if (typeof client !== 'object' || client === null || typeof client.send !== 'function') {
    invalidOption('client', 'a client from createClient()', client);
  }
  return client;
}

export function validateInput(input: string): string {
  return stringOption(input, 'input', 'a non-empty URL or path string', (value) => value !== '');
}
