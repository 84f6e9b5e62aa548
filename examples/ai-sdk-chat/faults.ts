/**
 * The demo's faults, applied on the server for real to the next answer that streams:
 *
 * - `cut`: the answer's first events reach the browser, then the server destroys the TCP
 *   connection — no clean end, just a reset, as a flaky network or a gateway restart does
 *   it. The browser's `client.fetch` sends the intent again with `Last-Event-ID` and the
 *   answer continues from the server's log.
 * - `break`: the model's stream fails after a few events. The intent is recorded failed,
 *   the browser resends it, the model runs again (a second call, honestly) and the answer
 *   restarts: the page replaces the partial text with the new answer, in place.
 */
import type { Socket } from 'node:net';

/** What the browser had time to receive before the connection drops, in ms. */
const FLUSH_MS = 50;

export function cutAfterEvents(response: Response, events: number, socket: Socket): Response {
  if (!response.body) return response;
  let seen = 0;
  let cut: Promise<void> | undefined;
  let previous = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (cut) return; // past the cut: nothing more leaves
        for (let i = 0; i < chunk.length; i++) {
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

export function breakAfterEvents(
  response: Response,
  events: number,
  reason = 'the model stream failed (simulated)',
): Response {
  if (!response.body) return response;
  let seen = 0;
  let previous = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length; i++) {
          if (chunk[i] === 10 && previous === 10) seen += 1;
          previous = chunk[i]!;
          if (seen === events) {
            controller.enqueue(chunk.subarray(0, i + 1));
            return controller.error(new Error(reason));
          }
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
