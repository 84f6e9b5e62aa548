/** A `text/event-stream` Response that writes `events` (already framed) one every `delayMs`. */
export function sseResponse(events: readonly string[], delayMs = 2): Response {
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === events.length) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      controller.enqueue(encoder.encode(events[index++]));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}
