/**
 * A streaming client for the multi-instance specs: one attempt of an SSE intent read as a
 * browser's EventSource would (events dispatched only once complete, `Last-Event-ID` the
 * last id seen), optionally cut at a byte; and `followIntent`, which reconnects across
 * instances until the answer ended cleanly, keeping the transcript a UI would show: the
 * answer's events, dropped and started again at every restart marker.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ServerInstance } from './server-instances.js';
import { sleep } from './sleep.js';

export const RESTART_EVENT = 'answer-once.restart';
const ERROR_EVENT = 'answer-once.error';
export const STOPPED_EVENT = 'answer-once.stopped';

/** How the model of `POST /api/stream` answers (request headers: not part of the fingerprint). */
export interface StreamModel {
  readonly events: number;
  readonly eventMs: number;
  /** The model ignores its signal (a frozen worker that thaws goes on producing). */
  readonly deaf?: boolean;
  /** Every run of the model streams the same events (`data: same:<i>`): a re-run reproduces the answer. */
  readonly deterministic?: boolean;
}

export interface StreamAttemptOptions {
  readonly lastEventId?: string;
  /** Stop reading (drop the connection) once this many body bytes arrived. */
  readonly cutAtByte?: number;
  /** Stop reading once this many events arrived. */
  readonly cutAfterEvents?: number;
  /** `Prefer: wait=N` seconds, so an attempt before the head is held. @default 20 */
  readonly waitSeconds?: number;
  readonly timeoutMs?: number;
  /** Ask the instance to refuse it with a 503 before any work (the fixture's `x-fault`). */
  readonly fault503?: boolean;
}

/** One attempt as its client saw it. */
export interface StreamAttempt {
  readonly status: number;
  readonly headers: Headers;
  /** Every event dispatched, markers included, in order. */
  readonly events: EventSourceMessage[];
  readonly bytes: Uint8Array;
  /** `clean`: the body ended; `cut`: we dropped it; `broken`: it ended without its end. */
  readonly end: 'clean' | 'cut' | 'broken';
}

export async function streamAttempt(
  instance: ServerInstance,
  id: string,
  model: StreamModel,
  options: StreamAttemptOptions = {},
): Promise<StreamAttempt> {
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(new Error('attempt timed out')), options.timeoutMs ?? 60_000);
  const events: EventSourceMessage[] = [];
  const parts: Uint8Array[] = [];
  let received = 0;
  let end: StreamAttempt['end'] = 'clean';
  try {
    const response = await fetch(`${instance.url}/api/stream`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': id,
        prefer: `wait=${options.waitSeconds ?? 20}`,
        'x-events': String(model.events),
        'x-event-ms': String(model.eventMs),
        ...(model.deaf ? { 'x-ignore-signal': '1' } : {}),
        ...(model.deterministic ? { 'x-deterministic': '1' } : {}),
        ...(options.fault503 ? { 'x-fault': '503' } : {}),
        ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
      },
      body: JSON.stringify({ question: `stream ${id}` }),
      signal: controller.signal,
    });
    const parser = createParser({ onEvent: (event) => events.push(event) });
    const decoder = new TextDecoder();
    const reader = response.body?.getReader();
    try {
      for (;;) {
        if (!reader) break;
        const { done, value } = await reader.read();
        if (done) break;
        let chunk = value;
        const cut = options.cutAtByte !== undefined && received + chunk.byteLength >= options.cutAtByte;
        if (cut) chunk = chunk.subarray(0, options.cutAtByte! - received);
        received += chunk.byteLength;
        parts.push(chunk);
        parser.feed(decoder.decode(chunk, { stream: true }));
        const enough = options.cutAfterEvents !== undefined && events.length >= options.cutAfterEvents;
        if (cut || enough) {
          end = 'cut';
          await reader.cancel().catch(() => {});
          break;
        }
      }
    } catch {
      end = 'broken';
    }
    return { status: response.status, headers: response.headers, events, bytes: Buffer.concat(parts), end };
  } finally {
    clearTimeout(timeout);
  }
}

/** What a client that keeps reconnecting ends with. */
export interface FollowedIntent {
  /** The answer's events since the last restart marker, markers left out. */
  readonly transcript: EventSourceMessage[];
  readonly attempts: StreamAttempt[];
  readonly restarts: number;
}

/** Events that are part of the answer (the stop marker is, § 14.8; restart and error are not). */
export const isAnswerEvent = (event: EventSourceMessage): boolean =>
  event.event !== RESTART_EVENT && event.event !== ERROR_EVENT;

/**
 * Reconnects (alternating `instances`, from the first) with the last id seen until an
 * attempt's body ends cleanly without an error marker. `cut(attempt)` says where to drop
 * attempt n's connection (undefined: read it to its end). Bounded by `maxAttempts`.
 */
export async function followIntent(
  instances: readonly ServerInstance[],
  id: string,
  model: StreamModel,
  options: {
    cut?: (attempt: number) => StreamAttemptOptions | undefined;
    maxAttempts?: number;
    first?: number;
    /** The position the client already has. */
    lastEventId?: string;
    /** What it already shows (the events up to `lastEventId`). */
    transcript?: EventSourceMessage[];
  } = {},
): Promise<FollowedIntent> {
  const attempts: StreamAttempt[] = [];
  let transcript: EventSourceMessage[] = [...(options.transcript ?? [])];
  let lastEventId = options.lastEventId;
  let restarts = 0;
  for (let index = 0; index < (options.maxAttempts ?? 40); index += 1) {
    const instance = instances[((options.first ?? 0) + index) % instances.length]!;
    let attempt: StreamAttempt;
    try {
      attempt = await streamAttempt(instance, id, model, {
        ...options.cut?.(index),
        ...(lastEventId ? { lastEventId } : {}),
      });
    } catch {
      await sleep(100); // that instance is gone (killed): try the next
      continue;
    }
    attempts.push(attempt);
    if (attempt.status === 202 || attempt.status === 503 || attempt.status === 409) {
      await sleep(100); // not ours to answer yet: ask again
      continue;
    }
    let failed = false;
    for (const event of attempt.events) {
      if (event.id !== undefined) lastEventId = event.id;
      if (event.event === RESTART_EVENT) {
        transcript = [];
        restarts += 1;
      } else if (event.event === ERROR_EVENT) {
        failed = true;
      } else {
        transcript.push(event);
      }
    }
    if (attempt.status === 204) return { transcript, attempts, restarts }; // had it all already
    if (attempt.status !== 200) throw new Error(`intent ${id}: unexpected status ${attempt.status}`);
    if (attempt.end === 'clean' && !failed) return { transcript, attempts, restarts };
    if (failed) await sleep(50);
  }
  throw new Error(`intent ${id}: no clean end within ${options.maxAttempts ?? 40} attempts`);
}
