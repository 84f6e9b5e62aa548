/**
 * The demo's streamed answers on the wire: the model's tokens as an event stream (one
 * `data:` event per token, which `useSend({ stream: true })` shows as it arrives), and
 * the "cut the stream" fault, which lets k events through and then destroys the socket.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const encoder = new TextEncoder();

/** `tokens` as `text/event-stream`: `data: <token>` per event (tokens hold no line breaks). */
export function tokenEvents(tokens: ReadableStream<string>): Response {
  const body = tokens.pipeThrough(
    new TransformStream<string, Uint8Array>({
      transform(token, controller) {
        controller.enqueue(encoder.encode(`data: ${token}\n\n`));
      },
    }),
  );
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' } });
}

/**
 * `response` with its body cut after `events` whole events: those bytes go out, then —
 * once they had time to reach the client — `destroy()` resets the connection, for real.
 * The work behind it carries on (its log is the server's, not this connection's).
 */
export function cutAfterEvents(response: Response, events: number, destroy: () => void): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  let seen = 0;
  let last = 0; // the previous chunk's last byte: an event ends at "\n\n"
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      let end = value.byteLength;
      for (let i = 0; i < value.byteLength; i++) {
        const previous = i === 0 ? last : value[i - 1];
        if (value[i] === 0x0a && previous === 0x0a && ++seen === events) {
          end = i + 1;
          break;
        }
      }
      last = value[value.byteLength - 1]!;
      controller.enqueue(end === value.byteLength ? value : value.subarray(0, end));
      if (seen < events) return;
      void reader.cancel().catch(() => undefined);
      await sleep(150);
      destroy();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
