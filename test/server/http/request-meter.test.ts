/**
 * The request meter's `answered` event: one per request, however its answer ends — also
 * for a caller that leaves while its answer waits for its next bytes.
 */

import type { IdempotencyEvent } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const answered = (events: IdempotencyEvent[]) =>
  events.filter((event) => event.type === 'answered').map((event) => event.type === 'answered' && event.outcome);

describe('the request meter', () => {
  it('reports one answered event for a caller that leaves while its answer waits for its next bytes', async () => {
    const more = gate();
    const app = chatApp({
      work: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode('first '));
              await more.promise;
              controller.enqueue(new TextEncoder().encode('rest'));
              controller.close();
            },
          }),
        ),
    });
    const response = await app.handle(chatRequest());
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first ');
    const next = reader.read(); // waits on the work's next bytes
    await sleep(20);
    await reader.cancel(); // the caller left
    await next;
    more.open();
    await until(() => answered(app.events).length > 0);
    await sleep(50); // a second report would arrive within its turn
    expect(answered(app.events)).toEqual(['ran']);
  });
});
