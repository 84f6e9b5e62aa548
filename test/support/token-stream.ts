/**
 * A fake model's streamed answer: `tokens` one every `delayMs`, as SSE events (`data:`)
 * or plain text; it ends early, cleanly, when `signal` aborts (a stop, § 14.8).
 */
export function tokenResponse(
  tokens: readonly string[],
  options: { kind?: 'sse' | 'text'; delayMs?: number; signal?: AbortSignal } = {},
): Response {
  const { kind = 'sse', delayMs = 5, signal } = options;
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (index === tokens.length || signal?.aborted) return controller.close();
      const token = tokens[index++]!;
      controller.enqueue(encoder.encode(kind === 'sse' ? `data: ${token}\n\n` : token));
    },
  });
  const type = kind === 'sse' ? 'text/event-stream' : 'text/plain; charset=utf-8';
  return new Response(body, { headers: { 'content-type': type } });
}
