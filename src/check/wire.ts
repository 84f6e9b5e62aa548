/**
 * The check's side of the wire: one case's requests, all under the case's deadline, with
 * Node's own `fetch` (no client library between the check and the server).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  IDEMPOTENCY_KEY_HEADER,
  PREFER_HEADER,
  PREFERENCE_APPLIED_HEADER,
  PROBLEM_JSON,
  REQUEST_ID_HEADER,
} from '../core/headers.js';
import { newRequestId } from '../core/ids.js';
import type { ResolvedCheckOptions } from './options.js';
import { fail } from './outcome.js';

/** A response with its whole body read. */
export interface Answer {
  readonly response: Response;
  readonly body: Uint8Array;
}

/** How an intent's ID goes out: which header(s), or none. */
type IdCarrier = 'x-request-id' | 'idempotency-key' | 'both' | 'none';

export interface SendInit {
  /** @default 'x-request-id' */
  readonly carrier?: IdCarrier;
  /** Extra request headers. @default {} */
  readonly headers?: Record<string, string>;
  /** @default the run's `body` */
  readonly body?: string;
  /** Sign in as the second identity (`otherHeaders`). @default false */
  readonly asOther?: boolean;
}

/** Polls of a status URL while an intent is in progress, at most (each a long-poll). */
const MAX_POLLS = 60;
/** The pause after a 202 the server did not hold, so a server that ignores `Prefer` is not hammered. */
const UNHELD_POLL_PAUSE_MS = 250;

export class Wire {
  /** The last request sent (method and URL): where a case that timed out was. */
  last = '';
  /** Aborts at the case's deadline, or when it ended ({@link close}): every request and body read of the case. */
  readonly signal: AbortSignal;
  private readonly ended = new AbortController();

  constructor(
    readonly options: ResolvedCheckOptions,
    deadline: AbortSignal,
  ) {
    this.signal = AbortSignal.any([deadline, this.ended.signal]);
  }

  /** Ends whatever of the case is still open (a body it did not read, a request still in flight). */
  close(): void {
    this.ended.abort();
  }

  /** A new intent's ID (a ULID, as the reference client mints). */
  newId(): string {
    return newRequestId();
  }

  /** `POST`s an intent to the protected route. */
  send(id: string, init: SendInit = {}): Promise<Response> {
    const { carrier = 'x-request-id', body = this.options.body } = init;
    const headers = this.headers(init.asOther, init.headers);
    headers.set('Content-Type', this.options.contentType);
    if (carrier === 'x-request-id' || carrier === 'both') headers.set(REQUEST_ID_HEADER, id);
    if (carrier === 'idempotency-key' || carrier === 'both') headers.set(IDEMPOTENCY_KEY_HEADER, `"${id}"`);
    return this.fetch(this.options.url, 'POST', headers, body);
  }

  /** The status URL of intent `id` (§ 8). */
  statusUrl(id: string): URL {
    return new URL(`${this.options.statusPath}/${encodeURIComponent(id)}`, this.options.url);
  }

  /** A request to a status URL (`GET` unless said). */
  status(
    target: string | URL,
    init: { method?: string; headers?: Record<string, string>; asOther?: boolean } = {},
  ): Promise<Response> {
    const url = target instanceof URL ? target : this.statusUrl(target);
    return this.fetch(url, init.method ?? 'GET', this.headers(init.asOther, init.headers));
  }

  /** `response`'s body, whole. */
  async read(response: Response): Promise<Uint8Array> {
    return new Uint8Array(await response.arrayBuffer());
  }

  /** Sends a new intent; fails unless the server answered it 2xx. Its body is left to read. */
  async start(id: string, init: SendInit = {}): Promise<Response> {
    const response = await this.send(id, init);
    if (!response.ok) {
      fail(
        `a new intent was answered ${describeAnswer(response, await this.read(response))}, not 2xx: ` +
          `is ${this.options.url} the protected route, and do the --header credentials sign in?`,
      );
    }
    return response;
  }

  /** Sends a new intent and reads its answer; fails unless the server answered it 2xx. */
  async answer(id: string, init: SendInit = {}): Promise<Answer> {
    const response = await this.start(id, init);
    return { response, body: await this.read(response) };
  }

  /**
   * Follows an intent in progress at `target` (its `Location`, or status URL) with
   * `Prefer: wait` (and `headers`: a position) until it answers anything but 202; bounded
   * by the case's deadline and {@link MAX_POLLS}.
   */
  async settled(target: string | URL, headers: Record<string, string> = {}): Promise<Answer> {
    for (let poll = 0; poll < MAX_POLLS; poll++) {
      const started = Date.now();
      const wait = { ...headers, [PREFER_HEADER]: `wait=${this.options.waitSeconds}` };
      const response = await this.status(target, { headers: wait });
      const body = await this.read(response);
      if (response.status !== 202) return { response, body };
      if (!response.headers.has(PREFERENCE_APPLIED_HEADER) && Date.now() - started < UNHELD_POLL_PAUSE_MS) {
        await sleep(UNHELD_POLL_PAUSE_MS, undefined, { signal: this.signal });
      }
    }
    return fail(`${target} still answered 202 after ${MAX_POLLS} polls`);
  }

  private headers(asOther = false, extra: Record<string, string> = {}): Headers {
    const identity = asOther ? this.options.otherHeaders : this.options.headers;
    const headers = new Headers(identity?.map(([name, value]) => [name, value]));
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return headers;
  }

  private async fetch(url: URL, method: string, headers: Headers, body?: string): Promise<Response> {
    this.last = `${method} ${url.pathname}${url.search}`;
    try {
      return await fetch(url, { method, headers, body: body ?? null, redirect: 'manual', signal: this.signal });
    } catch (error) {
      if (this.signal.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return fail(`${method} ${url} failed: ${cause?.code ?? cause?.message ?? String(error)}`);
    }
  }
}

/** `body` as a JSON object, or `undefined` when it is none. */
export function parseJson(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(body));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `401 (application/problem+json, code "x": title)`-like words for an answer. */
export function describeAnswer(response: Response, body: Uint8Array): string {
  const type = response.headers.get('Content-Type') ?? 'no Content-Type';
  const problem = type.startsWith(PROBLEM_JSON) ? parseJson(body) : undefined;
  const what = problem
    ? `code ${JSON.stringify(problem.code)}${typeof problem.title === 'string' ? `: ${problem.title}` : ''}`
    : `${body.length} bytes`;
  return `${response.status} (${type}, ${what})`;
}
