/**
 * Which stores the handler streams through (`isStreamStore`, PROTOCOL.md § 14.11): only a
 * store with every answer-log method — `append`, `read`, `stop` and `watchStop`. One
 * missing any of them keeps 0.1's buffered behaviour, so its stop route answers 501.
 */

import { type IdempotencyStore, isStreamStore, MemoryStore, type StreamStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, recordOps, until } from '../../support/server-support.js';

const ID = 'req-0000000001';
const LOG_METHODS = ['append', 'read', 'stop', 'watchStop'] as const;

/** A MemoryStore's record operations and every answer-log method but `missing`. */
function storeWithout(missing: (typeof LOG_METHODS)[number]): IdempotencyStore {
  const inner = new MemoryStore();
  const log: Partial<StreamStore> = {
    append: (...args) => inner.append(...args),
    read: (...args) => inner.read(...args),
    stop: (...args) => inner.stop(...args),
    watchStop: (key, token, timeoutMs, signal) => inner.watchStop(key, token, timeoutMs, signal),
  };
  delete log[missing];
  return { ...recordOps(inner), ...log };
}

const stopRequest = (): Request =>
  new Request(`http://app.test/api/status/${ID}`, { method: 'DELETE', headers: { Authorization: 'Bearer alice' } });

describe('isStreamStore: a store missing one answer-log method is not a stream store', () => {
  it.each(LOG_METHODS)('is false without %s', (missing) => {
    expect(isStreamStore(storeWithout(missing))).toBe(false);
  });

  it('is true with all four', () => {
    expect(isStreamStore(new MemoryStore())).toBe(true);
  });

  it.each(LOG_METHODS)(
    'the handler keeps the buffered behaviour without %s: its stop route answers 501 stop-unsupported and the work runs on',
    async (missing) => {
      const release = gate();
      const app = chatApp({ store: storeWithout(missing), work: () => release.promise.then(() => undefined) });
      const fresh = app.handle(chatRequest());
      await until(() => app.calls.length === 1);
      const stop = await app.handle(stopRequest());
      expect(stop.status).toBe(501);
      expect(await stop.json()).toMatchObject({ code: 'stop-unsupported', requestId: ID });
      release.open();
      const answer = await fresh;
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ answer: 'echo: hello?', run: 1 });
      expect(answer.headers.get('X-Idempotent-Generation')).toBeNull(); // not streamed through a log
    },
  );
});
