import { sleep } from './sleep.js';
/**
 * A fake model's streamed answer: `tokens` one every `delayMs`, as SSE events (`data:`)
 * or plain text; the tokens after the first wait for `hold` when given (a model held
 * mid-answer); it ends early, cleanly, when `signal` aborts (a stop, § 14.8). And the
 * tokens a reader takes back from such an answer (`tokensOf`).
 */
export function tokenResponse(
  tokens: readonly string[],
  options: { kind?: 'sse' | 'text'; delayMs?: number; hold?: Promise<void>; signal?: AbortSignal } = {},
): Response {
  const { kind = 'sse', delayMs = 5, hold, signal } = options;
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === 1 && hold) await hold;
      if (index > 0) await sleep(delayMs);
      if (index === tokens.length || signal?.aborted) return controller.close();
      const token = tokens[index++]!;
      controller.enqueue(encoder.encode(kind === 'sse' ? `data: ${token}\n\n` : token));
    },
  });
  const type = kind === 'sse' ? 'text/event-stream' : 'text/plain; charset=utf-8';
  return new Response(body, { headers: { 'content-type': type } });
}

/** The tokens a body's SSE events carry (`data: <token>`), in order; `onToken` hears the count so far. */
export async function tokensOf(response: Response, onToken?: (count: number) => void): Promise<string[]> {
  const tokens: string[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return tokens;
    buffer += value;
    const units = buffer.split('\n\n');
    buffer = units.pop()!;
    for (const unit of units) {
      const data = /^data: (.*)$/m.exec(unit)?.[1];
      if (data !== undefined) tokens.push(data);
    }
    onToken?.(tokens.length);
  }
}

/** `promise`, or a rejection saying it was still pending after `ms`. */
export const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)),
  ]);
