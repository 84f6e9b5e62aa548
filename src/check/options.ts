/**
 * The options of a check run (`answer-once check <url>`), normalised once: every check
 * throws a `TypeError` naming the option, before anything is sent.
 */
import { invalidOption, numberOption, optionsObject, stringOption } from '../core/options.js';
import { DEFAULT_STATUS_PATH } from '../core/status-path.js';

/** Request headers as name/value pairs. */
export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>;

/** What to check, and how. */
export interface CheckOptions {
  /** The protected route (an absolute `http:` or `https:` URL): every intent is a `POST` of `body` to it. */
  url: string;
  /**
   * Headers sent with every request: the credentials of the identity the check signs in as.
   * @default []
   */
  headers?: HeaderList;
  /**
   * The headers of a second identity (another user or session), for the scope case (§ 3).
   * Without them that case is skipped.
   * @default undefined
   */
  otherHeaders?: HeaderList | undefined;
  /**
   * The status route's path (§ 8), on the URL's origin.
   * @default '/api/status'
   */
  statusPath?: string;
  /**
   * The body of every intent: one chat message, in the shape the AI SDK's `useChat` sends.
   * @default DEFAULT_BODY
   */
  body?: string;
  /**
   * A body other than `body`, for the case that reuses an ID with another body (§ 6).
   * @default `body` with a space after it (other bytes: the fingerprint is of the raw body, § 5.2)
   */
  otherBody?: string;
  /**
   * The `Content-Type` of `body`.
   * @default 'application/json'
   */
  contentType?: string;
  /**
   * How long one case may take, every request and every wait in it (ms). The whole run
   * takes at most this much per case.
   * @default 20000
   */
  timeoutMs?: number;
  /**
   * The `Prefer: wait=N` (seconds) the check sends when it waits for an answer (§ 6.2).
   * Less than `timeoutMs`.
   * @default 5
   */
  waitSeconds?: number;
}

/** One user message, as `useChat` sends it (the AI SDK's UI message shape). */
const DEFAULT_BODY = JSON.stringify({
  messages: [
    {
      id: 'answer-once-check',
      role: 'user',
      parts: [{ type: 'text', text: 'Hello! (answer-once check)' }],
    },
  ],
});

export interface ResolvedCheckOptions {
  readonly url: URL;
  readonly headers: HeaderList;
  readonly otherHeaders: HeaderList | undefined;
  /** Without a trailing `/`: `/api/status`, or `` for a status route at the origin's root. */
  readonly statusPath: string;
  readonly body: string;
  readonly otherBody: string;
  readonly contentType: string;
  readonly timeoutMs: number;
  readonly waitSeconds: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function headerList(value: unknown, option: string): HeaderList {
  const valid =
    Array.isArray(value) &&
    value.every(
      (pair) =>
        Array.isArray(pair) &&
        pair.length === 2 &&
        typeof pair[0] === 'string' &&
        TOKEN.test(pair[0]) &&
        typeof pair[1] === 'string' &&
        !/[\r\n\0]/.test(pair[1]),
    );
  if (!valid) invalidOption(option, 'a list of [name, value] header pairs', value, 'answer-once check');
  return value as HeaderList;
}

function protectedUrl(value: unknown): URL {
  const url = URL.canParse(String(value)) ? new URL(String(value)) : undefined;
  if (typeof value !== 'string' || (url?.protocol !== 'http:' && url?.protocol !== 'https:')) {
    invalidOption('url', 'an absolute http: or https: URL', value, 'answer-once check');
  }
  return url;
}

export function normalizeCheckOptions(given: CheckOptions): ResolvedCheckOptions {
  const options = optionsObject(given, 'check options', false, 'answer-once check');
  const library = 'answer-once check';
  const url = protectedUrl(options.url);
  const statusPath = stringOption(
    options.statusPath ?? DEFAULT_STATUS_PATH,
    'statusPath',
    'a path starting with `/`',
    (path) => path.startsWith('/') && !path.startsWith('//'),
    library,
  );
  const body = stringOption(options.body ?? DEFAULT_BODY, 'body', 'a string', undefined, library);
  const otherBody = stringOption(
    options.otherBody ?? `${body} `,
    'otherBody',
    'a string other than `body`',
    (other) => other !== body,
    library,
  );
  const timeoutMs = numberOption(options.timeoutMs ?? 20_000, 'timeoutMs', { min: 2_000, max: 600_000 }, library);
  return {
    url,
    headers: headerList(options.headers ?? [], 'headers'),
    otherHeaders: options.otherHeaders === undefined ? undefined : headerList(options.otherHeaders, 'otherHeaders'),
    statusPath: statusPath.replace(/\/+$/, ''),
    body,
    otherBody,
    contentType: stringOption(
      options.contentType ?? 'application/json',
      'contentType',
      'a media type (`type/subtype`)',
      (type) => /^[^\s/]+\/[^\s/]+/.test(type) && !/[\r\n\0]/.test(type),
      library,
    ),
    timeoutMs,
    waitSeconds: numberOption(
      options.waitSeconds ?? 5,
      'waitSeconds',
      { min: 1, max: Math.floor(timeoutMs / 1000) - 1 },
      library,
    ),
  };
}
