/**
 * The per-call options of `send()`, validated once per call by
 * {@link normalizeSendOptions}. `requestId`, `intentKey`, `signal` and `onEvent` are a
 * stable contract (the send controller of `answer-once/react` relies on them).
 */
import type { SearchParamsOption } from 'ky';
import { functionOption, invalidOption, optionsObject, stringOption } from '../../core/options.js';
import { isValidRequestId } from '../../core/request-id.js';
import type { SendEventListener } from '../events.js';
import { parseOption, signalOption } from '../options.js';
import type { ParseMode } from './parse.js';

export interface SendOptions {
  /**
   * HTTP method of the intent's request.
   * @default 'POST'
   */
  method?: string;
  /**
   * Body sent as JSON (`Content-Type: application/json`).
   * @default undefined
   */
  json?: unknown;
  /**
   * Any other body. With `storage`, it must be text-like (string, URLSearchParams,
   * FormData of strings) so the pending intent can be written down.
   * @default undefined
   */
  body?: BodyInit | null;
  /**
   * Headers of this request, merged over the client's. They are stored with a pending
   * intent, so keep credentials in the client's headers or hooks.
   * @default undefined
   */
  headers?: HeadersInit;
  /**
   * Query parameters, as ky takes them.
   * @default undefined
   */
  searchParams?: SearchParamsOption;
  /**
   * The intent's ID, when it already has one (a queued, restored or failed intent sent
   * again). 8–128 characters of `[A-Za-z0-9_-]`.
   * @default a new ULID
   */
  requestId?: string;
  /**
   * Calls with the same `intentKey` (or the same `requestId`) while one is in flight
   * join it: one request, one ID, the same result for every caller. Options of the
   * joining calls other than `signal` and `onEvent` are ignored.
   * @default undefined
   */
  intentKey?: string;
  /**
   * Stops retries and polls at once; the call rejects with `AbortError`. A joined
   * intent is aborted when every caller's signal has fired.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Receives this intent's events (after the client's `onEvent`).
   * @default undefined
   */
  onEvent?: SendEventListener;
  /**
   * How `result.data` is read; see the client's `parse`.
   * @default the client's `parse`
   */
  parse?: ParseMode;
}

export interface NormalizedSendOptions extends Omit<SendOptions, 'method' | 'requestId' | 'intentKey'> {
  readonly method: string;
  readonly requestId: string | undefined;
  readonly joinKey: string | undefined;
}

export function normalizeSendOptions(options: SendOptions = {}): NormalizedSendOptions {
  const given = optionsObject(options, 'options');
  const { method = 'POST', requestId, intentKey, signal, onEvent, parse } = given;
  stringOption(method, 'method', 'an HTTP method', (name) => /^[A-Za-z]+$/.test(name));
  if (requestId !== undefined) stringOption(requestId, 'requestId', '8–128 characters of [A-Za-z0-9_-]', isValidRequestId);
  if (intentKey !== undefined) stringOption(intentKey, 'intentKey', 'a non-empty string', (key) => key !== '');
  signalOption(signal, 'signal');
  functionOption(onEvent, 'onEvent');
  if (parse !== undefined) parseOption(parse, 'parse');
  if (given.json !== undefined && given.body != null) invalidOption('json', 'omitted when `body` is given', given.json);
  return {
    ...given,
    method: method.toUpperCase(),
    requestId,
    joinKey: intentKey === undefined ? (requestId === undefined ? undefined : `id:${requestId}`) : `key:${intentKey}`,
  };
}
