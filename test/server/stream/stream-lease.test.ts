/**
 * A streamed answer's appends renew the holder's lease (PROTOCOL.md § 14.9, `leaseMs` on
 * append): while they flow the heartbeat makes no round trips of its own; when the model
 * pauses, the heartbeat keeps the lease as before.
 */

import { MemoryStore, type StreamStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { sseAnswer } from '../../support/stream-support.js';

const LEASE = { leaseMs: 300, heartbeatMs: 100, flushMs: 10 };

/** The store, counting its renews and the appends that carried `leaseMs`. */
function counted(store: StreamStore) {
  const counts = { renews: 0, renewingAppends: 0 };
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'renew') counts.renews += 1;
        if (property === 'append' && (args[2] as { leaseMs?: number }).leaseMs !== undefined) counts.renewingAppends += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, counts };
}

describe('createIdempotencyHandler: the lease of a streamed answer', () => {
  it('is renewed by the appends themselves while the answer flows: no heartbeat round trips, a duplicate attaches', async () => {
    const { store, counts } = counted(new MemoryStore());
    // ~60 events 15 ms apart: three leases long.
    const app = chatApp({ store, ...LEASE, work: () => sseAnswer(60, { delayMs: 15 }) });
    const first = await app.handle(chatRequest({ id: 'req-lease-000001' }));
    const whole = first.text();
    await sleep(2 * LEASE.leaseMs);
    const duplicate = await app.handle(chatRequest({ id: 'req-lease-000001' }));
    expect(duplicate.headers.get('X-Idempotent-Attached')).toBe('true');
    const [text, attached] = await Promise.all([whole, duplicate.text()]);
    expect(attached).toBe(text);
    expect(app.calls).toHaveLength(1);
    expect(counts.renewingAppends).toBeGreaterThan(5);
    // The heartbeat beat ~9 times; a loaded machine may leave one gap between appends long enough.
    expect(counts.renews).toBeLessThanOrEqual(1);
  });

  it('is renewed by the heartbeat while the model pauses longer than the lease: nobody takes it over', async () => {
    const { store, counts } = counted(new MemoryStore());
    const encoder = new TextEncoder();
    const app = chatApp({
      store,
      ...LEASE,
      work: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(encoder.encode('data: before the pause\n\n'));
              await sleep(3 * LEASE.leaseMs);
              controller.enqueue(encoder.encode('data: after it\n\n'));
              controller.close();
            },
          }),
          { headers: { 'Content-Type': 'text/event-stream' } },
        ),
    });
    const first = await app.handle(chatRequest({ id: 'req-lease-000002' }));
    const whole = first.text();
    await sleep(2 * LEASE.leaseMs);
    const duplicate = await app.handle(chatRequest({ id: 'req-lease-000002' }));
    expect(duplicate.headers.get('X-Idempotent-Attached')).toBe('true');
    await Promise.all([whole, duplicate.text()]);
    expect(app.calls).toHaveLength(1);
    expect(counts.renews).toBeGreaterThanOrEqual(3);
  });
});
