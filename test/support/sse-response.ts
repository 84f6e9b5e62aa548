import { sleep } from './sleep.js';
/** A `text/event-stream` Response that writes `events` (already framed) one every `delayMs`. */
export function sseResponse(events: readonly string[], delayMs = 2): Response {
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === events.length) return controller.close();
      await sleep(delayMs);
      controller.enqueue(encoder.encode(events[index++]));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

/**
 * Events of generation `generation` framed as the server frames them (PROTOCOL.md § 14.4):
 * `event:` when given, one `data:` line, `id: <g>.<N>` with N the offset just after the
 * event (its own length counted), from offset `start`. Each string is one event.
 */
export function positionedEvents(
  generation: number,
  events: readonly (string | { readonly event: string; readonly data: string })[],
  start = 0,
): string[] {
  let offset = start;
  return events.map((item) => {
    const { event, data } = typeof item === 'string' ? { event: undefined, data: item } : item;
    const fields = `${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n`;
    const fixed = offset + Buffer.byteLength(fields) + `id: ${generation}.`.length + 2;
    let end = fixed + String(fixed).length;
    while (end - fixed !== String(end).length) end = fixed + String(end).length;
    offset = end;
    return `${fields}id: ${generation}.${end}\n\n`;
  });
}

/** The restart marker of `generation` (§ 14.5). */
export const restartMarker = (generation: number) =>
  `event: answer-once.restart\ndata: {"generation":${generation}}\nid: ${generation}.0\n\n`;

/** The error marker (§ 14.7). */
export const errorMarker = (status = 502, code = 'intent-failed') =>
  `event: answer-once.error\ndata: {"code":"${code}","status":${status}}\n\n`;

/** Requests a scripted server answers before it gives in and answers whole: a client loop past its bounds ends there. */
const GIVE_IN = 40;

/**
 * What a server whose every request runs the work again answers its `n`th request: a new
 * generation `base + n`, its restart marker first when the request named an older one
 * (`Last-Event-ID`), `events`, then `tail` (an error marker, say), and a cut or a clean
 * end. From request 40 on it gives in and answers `events` alone.
 */
export function rerunAnswer(
  request: Request,
  n: number,
  run: { base: number; events: readonly string[]; tail?: readonly string[]; end?: 'cut' | 'close' },
): Response {
  const generation = run.base + n;
  const tokens = positionedEvents(generation, run.events);
  if (n >= GIVE_IN) return generationAnswer(generation, tokens);
  const restart = request.headers.has('last-event-id') ? [restartMarker(generation)] : [];
  return generationAnswer(generation, [...restart, ...tokens, ...(run.tail ?? [])], run.end);
}

/** An answer-once event stream of `generation` (its headers): `parts` one per read, then a cut (socket reset) or a clean end. */
export function generationAnswer(generation: number, parts: readonly string[], end: 'cut' | 'close' = 'close'): Response {
  const encoder = new TextEncoder();
  const queue = [...parts];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = queue.shift();
      if (part !== undefined) controller.enqueue(encoder.encode(part));
      else if (end === 'cut') controller.error(new TypeError('terminated'));
      else controller.close();
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'x-idempotent-generation': String(generation) },
  });
}
