/**
 * The cross-instance lag the stream benches measure: two handlers (instances A and B, each
 * over a store of its own on one shared server); an answer streams on A, a reader attaches
 * on B once A's first byte is out, and every event's production time (stamped in its data)
 * is compared with the moment it reached B's reader.
 */
import type { IdempotencyStore } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { sleep } from './stats.js';
import { chat, drain, model } from './stream-model.js';
import { newId, protect, ROUNDS, type Work } from './stream-rig.js';

/** Production on A → arrival at a reader attached on B, in ms, for each live event; and the rounds B did not attach. */
export async function crossInstanceLag(
  storeA: IdempotencyStore,
  storeB: IdempotencyStore,
): Promise<{ delays: number[]; missed: number }> {
  const work: Work = () => model(50, 20, { stamp: true });
  const a = await serve(protect(storeA, work));
  const b = await serve(protect(storeB, work));
  const delays: number[] = [];
  let missed = 0;
  try {
    for (let round = 0; round < ROUNDS * 2; round += 1) {
      const id = newId();
      const first = await fetch(chat(a.url, id));
      const body = first.body!.getReader();
      await body.read(); // the answer is streaming on A: its head is in the log
      const producing = (async () => {
        while (!(await body.read()).done);
      })();
      await sleep(20);
      const attached = await fetch(chat(b.url, id, { Prefer: 'wait=5' }));
      if (attached.headers.get('x-idempotent-attached') !== 'true') {
        missed += 1; // B answered otherwise (the answer had ended): no live events to time
        await Promise.all([drain(attached), producing]);
        continue;
      }
      const reader = attached.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const now = performance.timeOrigin + performance.now();
        text += decoder.decode(value, { stream: true });
        const blocks = text.split('\n\n');
        text = blocks.pop() ?? '';
        for (const block of blocks) {
          const stamp = /^data: ([\d.]+)$/m.exec(block)?.[1];
          if (stamp) delays.push(now - Number(stamp));
        }
      }
      await producing;
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  // The reader's first batch holds events produced before it attached: leave those out.
  return { delays: delays.filter((delay) => delay < 1_000), missed };
}
