/**
 * Helpers for the streaming specs: a model that streams SSE tokens (counting its calls,
 * optionally held at a gate), and readers that parse what a client was given.
 */

import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { IdempotencyRecord, StreamStore } from 'answer-once/server';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { sleep } from './sleep.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A model answer: `count` SSE events `data: <prefix><i>`, `delayMs` apart, stopping when
 * `signal` aborts; held before its first event until `hold`, and before event `pause.at` until `pause.until`.
 */
export function sseAnswer(
  count: number,
  options: {
    delayMs?: number;
    prefix?: string;
    signal?: AbortSignal;
    breakAfter?: number;
    hold?: Promise<void>;
    pause?: { at: number; until: Promise<void> };
  } = {},
): Response {
  const { delayMs = 0, prefix = 'token ', signal, breakAfter, hold, pause } = options;
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === 0 && hold) await hold;
      if (index === pause?.at) await pause.until;
      if (signal?.aborted) return controller.error(signal.reason);
      if (index === breakAfter) return controller.error(new Error('model connection reset'));
      if (index >= count) return controller.close();
      if (delayMs > 0 && index > 0) await sleep(delayMs);
      controller.enqueue(encoder.encode(`data: ${prefix}${index}\n\n`));
      index += 1;
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' } });
}

/** Every SSE event in `text`, as a client's parser sees them. */
export function parseEvents(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

interface EventsRead {
  readonly text: string;
  readonly events: EventSourceMessage[];
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
}

/** Reads `response`'s body until `count` events arrived (or it ended); returns the text read and the reader. */
export function readEvents(response: Response, count = Number.POSITIVE_INFINITY): Promise<EventsRead> {
  return readFrom(response.body!.getReader(), count);
}

/** Reads on from where `readEvents(…, count)` stopped, to the end of the body. */
export function readRest(partial: EventsRead): Promise<EventsRead> {
  return readFrom(partial.reader, Number.POSITIVE_INFINITY);
}

async function readFrom(reader: ReadableStreamDefaultReader<Uint8Array>, count: number): Promise<EventsRead> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  let text = '';
  while (events.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    const chunk = decoder.decode(value, { stream: true });
    text += chunk;
    parser.feed(chunk);
  }
  return { text, events, reader };
}

export const tokens = (events: readonly EventSourceMessage[]): string[] =>
  events.filter((event) => event.event === undefined).map((event) => event.data);

/** A producer that froze, as the store sees it; the spec, not the clock, says when its lease lapses. */
export interface FrozenStore {
  /** The store minus its lease renewals (heartbeat, appends' `leaseMs`): its holder "runs" on, unrenewed. */
  readonly store: StreamStore;
  /** Resolves once the frozen holder's log has its head (a reader attaching now follows it). */
  logged(): Promise<void>;
  /** Ends the frozen holder's lease now, as its deadline passing would: the store's waiters wake to it. */
  lapse(): Promise<void>;
}

/**
 * A frozen producer's store over `store`. Give its app a lease far longer than the spec
 * runs: the lease lapses at `lapse()` and never earlier, however starved the machine.
 */
export function frozen(store: StreamStore): FrozenStore {
  let held: { key: string; token: string } | undefined;
  const holder = () => {
    if (!held) throw new Error('frozen: the producer has not acquired its key yet');
    return held;
  };
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'acquire')
        return async (...args: Parameters<StreamStore['acquire']>) => {
          const result = await target.acquire(...args);
          if (result.acquired) held = { key: args[0], token: result.token };
          return result;
        };
      if (property === 'renew') return async () => 'written';
      if (property === 'append')
        return (key: string, token: string, { leaseMs: _, ...batch }: Parameters<StreamStore['append']>[2]) =>
          target.append(key, token, batch);
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store: proxy,
    async logged() {
      const { log } = await store.read(holder().key, null, { waitMs: 30_000 });
      if (!log) throw new Error('frozen: the producer logged nothing within 30 s');
    },
    async lapse() {
      const { key, token } = holder();
      const renewed = await store.renew(key, token, 0);
      if (renewed !== 'written') throw new Error(`frozen: the producer no longer held its key (${renewed})`);
    },
  };
}

export const range = (count: number, prefix = 'token '): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`);

/** An answer of `contentType` that sends `before`, holds until `go`, then sends `after`. */
export function heldBetween(contentType: string, before: string, go: Promise<void>, after: string): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(before));
      await go;
      controller.enqueue(encoder.encode(after));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'Content-Type': contentType, 'Cache-Control': 'no-cache' } });
}

/** An SSE answer that sends one event, then holds until `go`, then sends one more. */
export const heldAfterOneEvent = (go: Promise<void>): Response =>
  heldBetween('text/event-stream', 'data: first\n\n', go, 'data: second\n\n');

/**
 * POSTs the chat intent `id` over a raw node:http socket; resolves once the head is in,
 * with the body left unread (a caller that stops reading stops the socket).
 */
export function postRaw(url: string, id: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'X-Request-Id': id, 'Content-Type': 'application/json', ...headers },
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end('{"question":"hello?"}');
  });
}

/** A PROCESSING record as a store hands it out (fingerprint `f`, token `t`, its first run). */
export const processingRecord = (fields: {
  leaseExpiresAt: number;
  createdAt: number;
  generation?: number;
}): IdempotencyRecord => ({ state: 'processing', fingerprint: 'f', token: 't', runs: 1, ...fields });
