/**
 * The streaming form of runOnce for queue consumers is the handler itself, fed plain
 * Requests built from messages (docs/server.md § Streamed answers): a redelivery while the
 * output streams attaches to it, one after it finished replays it, one model call.
 */

import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';
import { parseEvents, sseAnswer, tokens } from '../../support/stream-support.js';

interface Message {
  readonly id: string;
  readonly text: string;
}

describe('a queue consumer streaming through the handler', () => {
  it('answers a redelivered message from the live output, then from the stored one, with one model call', async () => {
    let modelCalls = 0;
    const consume = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'summaries' }),
      handler: async (request, { signal }) => {
        modelCalls += 1;
        const text = await request.text();
        return sseAnswer(12, { delayMs: 5, prefix: `${text} `, signal });
      },
    });
    // A redelivery that finds the work running but its head not yet logged is held until it is (Prefer: wait).
    const deliver = (message: Message): Promise<Response> =>
      consume(
        new Request('http://queue.local/summaries', {
          method: 'POST',
          headers: { 'X-Request-Id': message.id, Prefer: 'wait=5' },
          body: message.text,
        }),
      );
    const message = { id: 'msg-00000001', text: 'summary' };

    const first = await deliver(message);
    await sleep(20); // the consumer's ack is lost; the broker redelivers while the first still streams
    const redelivered = await deliver(message);
    expect(redelivered.headers.get('X-Idempotent-Attached')).toBe('true');
    const [a, b] = await Promise.all([first.text(), redelivered.text()]);
    expect(b).toBe(a);
    const later = await deliver(message);
    expect(later.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await later.text()).toBe(a);
    expect(tokens(parseEvents(a))).toHaveLength(12);
    expect(modelCalls).toBe(1);
  });
});
