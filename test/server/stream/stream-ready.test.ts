/**
 * A body whose chunks are all there already (a work that built its whole answer before
 * returning it) still streams: the attempt that runs the work gets its first bytes while
 * the producer is still reading, never once the whole body was read (PROTOCOL.md § 14.2).
 */

import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';

const CHUNKS = 5_000;
const encoder = new TextEncoder();

/** A body of `CHUNKS` SSE events, each ready the moment it is asked for; `pulled` counts the reads. */
function readyBody() {
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        counter.pulled += 1;
        controller.enqueue(encoder.encode(`data: token ${counter.pulled}\n\n`));
        if (counter.pulled === CHUNKS) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { counter, stream };
}

function chat(id: string): Request {
  return new Request('http://test.local/api/chat', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': id, 'X-Request-Id': id },
    body: '{"question":"q"}',
  });
}

describe('an answer whose chunks are all ready', () => {
  it('reaches its first caller before the producer has read its last chunk, and whole', async () => {
    const body = readyBody();
    const handle = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'u' }),
      handler: async () => new Response(body.stream, { headers: { 'Content-Type': 'text/event-stream' } }),
    });
    const response = await handle(chat('01J0000000000000000000READY'));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(body.counter.pulled).toBeLessThan(CHUNKS);
    const decoder = new TextDecoder();
    let text = decoder.decode(first.value, { stream: true });
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += decoder.decode(next.value, { stream: true });
    }
    const tokens = [...text.matchAll(/^data: token (\d+)$/gm)].map((match) => Number(match[1]));
    expect(tokens).toEqual(Array.from({ length: CHUNKS }, (_, index) => index + 1));
  });
});
