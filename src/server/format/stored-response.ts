import { concat } from '../../core/bytes.js';
import { isNullBodyStatus } from '../../core/null-body.js';
import { readUsage, type Usage } from '../usage.js';

/**
 * How the handler stores an HTTP answer in a COMPLETED record (PROTOCOL.md
 * § 7.3): status, the allow-listed headers, and the body as UTF-8 text when it is
 * valid UTF-8, base64 otherwise. An answer over `maxResponseBytes` is stored without
 * its body and `replayable: false`.
 */
export type StoredResponse =
  | {
      readonly v: 1;
      readonly replayable: true;
      readonly status: number;
      readonly headers: readonly (readonly [string, string])[];
      readonly encoding: 'utf8' | 'base64';
      readonly body: string;
      /** Stopped through the stop route (PROTOCOL.md § 14.8); absent otherwise. */
      readonly stopped?: true;
      /** What the run reported it cost (`reportUsage`); absent when it reported nothing. */
      readonly usage?: Usage;
    }
  | {
      readonly v: 1;
      readonly replayable: false;
      readonly status: number;
      readonly headers: readonly (readonly [string, string])[];
      readonly stopped?: true;
      readonly usage?: Usage;
    };

/** The COMPLETED record's `result` for `stored`, with the usage the run reported, if any. */
export function storedResult(stored: StoredResponse, usage: Usage | undefined): string {
  return JSON.stringify(usage === undefined ? stored : { ...stored, usage });
}

/** The usage kept with a stored answer, or `undefined` (none reported, or not an HTTP answer). */
export function storedUsage(result: string): Usage | undefined {
  try {
    return readUsage(parseStoredResponse(result).usage);
  } catch {
    return undefined;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function encodeBody(bytes: Uint8Array): { encoding: 'utf8' | 'base64'; body: string } {
  try {
    return { encoding: 'utf8', body: utf8.decode(bytes) };
  } catch {
    return { encoding: 'base64', body: toBase64(bytes) };
  }
}

function keptHeaders(headers: Headers, allow: ReadonlySet<string>): [string, string][] {
  return [...headers].filter(([name]) => allow.has(name.toLowerCase()));
}

/** How the body of an answer over `maxResponseBytes` ended: read to its end, or broken. */
type BodyEnd = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

/** What {@link captureResponse} read: a whole answer to store, or an oversize one still streaming to its caller. */
type Captured =
  | { readonly oversize: false; readonly stored: StoredResponse; readonly delivered: Response }
  | {
      readonly oversize: true;
      /** What to store once the body has ended well (`replayable: false`). */
      readonly stored: StoredResponse;
      /** The whole answer, streamed on to the caller. */
      readonly delivered: Response;
      /**
       * Settles when the handler's body has been read to its end or broke. A caller that
       * stops reading does not stop it: the rest is read (and dropped), so the outcome is
       * the work's, never the connection's.
       */
      readonly ended: Promise<BodyEnd>;
    };

/**
 * Reads `response` to the end (an AI answer streamed by the handler too: it is stored
 * whole) and returns what to store and what to send. Over `maxBytes` the reading stops,
 * the caller gets the whole answer streamed on, and `ended` tells how the body ended:
 * only then is the outcome known (PROTOCOL.md § 7.3).
 */
export async function captureResponse(
  response: Response,
  maxBytes: number,
  replayHeaders: ReadonlySet<string>,
): Promise<Captured> {
  const { status, statusText, headers } = response;
  const kept = keptHeaders(headers, replayHeaders);
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : ({ done: true, value: undefined } as const);
    if (next.done) {
      const bytes = concat(chunks, length);
      const body = length === 0 && isNullBodyStatus(status) ? null : bytes;
      return {
        oversize: false,
        stored: { v: 1, replayable: true, status, headers: kept, ...encodeBody(bytes) },
        delivered: new Response(body, { status, statusText, headers }),
      };
    }
    chunks.push(next.value);
    length += next.value.byteLength;
    if (length > maxBytes && reader) {
      const { stream, ended } = streamOn(chunks, reader);
      return {
        oversize: true,
        stored: { v: 1, replayable: false, status, headers: kept },
        delivered: new Response(stream, { status, statusText, headers }),
        ended,
      };
    }
  }
}

/** The chunks read so far, then the rest of `reader`; `ended` settles with how the source ended. */
function streamOn(
  chunks: readonly Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): { readonly stream: ReadableStream<Uint8Array>; readonly ended: Promise<BodyEnd> } {
  let settle!: (end: BodyEnd) => void;
  const ended = new Promise<BodyEnd>((resolve) => (settle = resolve));
  const read = async (): Promise<ReadableStreamReadResult<Uint8Array>> => {
    try {
      const next = await reader.read();
      if (next.done) settle({ ok: true });
      return next;
    } catch (error) {
      settle({ ok: false, error });
      throw error;
    }
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
    },
    async pull(controller) {
      const more = await read();
      if (more.done) controller.close();
      else controller.enqueue(more.value);
    },
    // The caller went away: read the rest anyway (bounded by the handler's own end and
    // the run's `maxRunMs`), so the outcome is the work's.
    cancel() {
      const drain = async (): Promise<void> => {
        while (!(await read()).done);
      };
      drain().catch(() => undefined); // `ended` already says the body broke
    },
  });
  return { stream, ended };
}

/** Parses a stored answer; throws a TypeError when it is not one. */
export function parseStoredResponse(stored: string): StoredResponse {
  const value = JSON.parse(stored) as Partial<StoredResponse> | null;
  if (value?.v !== 1 || typeof value.status !== 'number' || !Array.isArray(value.headers)) {
    throw new TypeError('answer-once: the stored record is not an HTTP answer.');
  }
  return value as StoredResponse;
}

/** The stored answer's body bytes, or `null` for an empty body of a null-body status. */
export function storedBody(stored: Extract<StoredResponse, { replayable: true }>): Uint8Array<ArrayBuffer> | null {
  const bytes = stored.encoding === 'utf8' ? new TextEncoder().encode(stored.body) : fromBase64(stored.body);
  return bytes.byteLength === 0 && isNullBodyStatus(stored.status) ? null : bytes;
}

/** Statuses that are transient by definition: not an answer, the intent may run again. */
const TRANSIENT_STATUSES = new Set([408, 425, 429]);

/** Whether a work's answer of `status` is a failure, stored FAILED (§ 7.1): a 5xx, 408, 425 or 429. */
export function isFailureStatus(status: number): boolean {
  return status >= 500 || TRANSIENT_STATUSES.has(status);
}

/** What the handler stores in a FAILED record. */
export interface StoredFailure {
  readonly status: number;
  readonly retryAfter?: string;
}

export function parseStoredFailure(stored: string): StoredFailure {
  try {
    const value = JSON.parse(stored) as Partial<StoredFailure> | null;
    if (typeof value?.status === 'number') return value as StoredFailure;
  } catch {
    // A record written by another layer (runOnce): answer it as a plain 500.
  }
  return { status: 500 };
}

/**
 * The stored answer of a streamed answer (PROTOCOL.md § 14.2): `body` is every byte
 * the caller was sent, or `undefined` when it outgrew `maxResponseBytes` (not replayable).
 */
export function storedAnswer(
  status: number,
  headers: readonly (readonly [string, string])[],
  body: Uint8Array | undefined,
  stopped: boolean,
): StoredResponse {
  const flag = stopped ? { stopped: true as const } : {};
  if (body === undefined) return { v: 1, replayable: false, status, headers, ...flag };
  return { v: 1, replayable: true, status, headers, ...encodeBody(body), ...flag };
}
