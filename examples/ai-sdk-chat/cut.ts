/**
 * "Cut the stream mid-answer", for real: the answer's first `events` SSE events reach
 * the browser, then the server destroys the TCP connection — no clean end, just a reset,
 * as a flaky network or a gateway restart does it. The browser's `client.fetch` sends the
 * intent again with `Last-Event-ID` and the answer continues from the server's log.
 */
import type { Socket } from 'node:net';

/** What the browser had time to receive before the connection drops, in ms. */
const FLUSH_MS = 50;

export function cutAfterEvents(response: Response, events: number, socket: Socket): Response {
  if (!response.body) return response;
  let seen = 0;
  let previous = 0;
  let cut: Promise<void> | undefined;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (cut) return; // past the cut: nothing more leaves
        for (let i = 0; i < chunk.length; i++) {
          // The server frames every event with LF only (PROTOCOL.md § 14.4): a blank line ends one.
          if (chunk[i] === 10 && previous === 10) seen += 1;
          previous = chunk[i]!;
          if (seen === events) {
            controller.enqueue(chunk.subarray(0, i + 1));
            cut = new Promise((resolve) => setTimeout(() => resolve(void socket.destroy()), FLUSH_MS));
            return;
          }
        }
        controller.enqueue(chunk);
      },
      // Never end the body cleanly once cut: the connection is reset instead.
      flush: () => cut,
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
