/** The stream bench's model and requests: SSE answers of a given length and pace, and a reader that drains them. */
import { sleep } from './stats.js';

const encoder = new TextEncoder();

/** The model: `events` SSE events, `delayMs` apart (0: as fast as read); `stamp` puts the production time in each. */
export function model(events: number, delayMs: number, options: { stamp?: boolean; hold?: Promise<void> } = {}): Response {
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === 1 && options.hold) await options.hold;
      if (index > 0 && delayMs > 0) await sleep(delayMs);
      if (index >= events) return controller.close();
      const data = options.stamp ? `${performance.timeOrigin + performance.now()}` : `token ${index} of the answer`;
      controller.enqueue(encoder.encode(`data: ${data}\n\n`));
      index += 1;
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** One chat request of intent `id` to the handler at `base`. */
export function chat(base: string, id: string, headers: Record<string, string> = {}): Request {
  return new Request(`${base}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id, ...headers },
    body: JSON.stringify({ question: 'What is the capital of France?' }),
  });
}

/** Reads `response`'s body to its end; resolves with its length in bytes. */
export async function drain(response: Response): Promise<number> {
  let bytes = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}
