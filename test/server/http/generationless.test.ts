/**
 * A store whose records and claims carry no generation (store.ts: "absent on a store that
 * does not" keep answer logs): its answers are the buffered ones of 0.1 (PROTOCOL.md
 * § 14.10, § 14.11) — never streamed under a made-up generation, and replayed whole
 * whatever position a request names.
 */

import { type AcquireResult, type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, recordOps, viewOf } from '../../support/server-support.js';

/** `result` without its generation (the claim's, or the record's when not acquired). */
function withoutGeneration(result: AcquireResult): AcquireResult {
  if (result.acquired) {
    const { generation: _claimed, ...claim } = result;
    return claim;
  }
  const { generation: _held, ...record } = result.record;
  return { acquired: false, record: record as typeof result.record };
}

const noGenerations = (store: MemoryStore) => ({
  acquire: async (...args: Parameters<IdempotencyStore['acquire']>) => withoutGeneration(await store.acquire(...args)),
});

describe('a store that hands out no generations', () => {
  it('keeps answer logs, yet a claim without a generation is answered buffered, with no generation header', async () => {
    const store = new MemoryStore();
    const app = chatApp({ store: viewOf(store, noGenerations(store)) });
    const fresh = await app.handle(chatRequest());
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('X-Idempotent-Generation')).toBeNull();
    expect(await fresh.json()).toEqual({ answer: 'echo: hello?', run: 1 });
  });

  it('replays a finished answer whole to a Range request, as 0.1 did: 200, no Content-Range', async () => {
    const store = new MemoryStore();
    const app = chatApp({ store: recordOps(store, noGenerations(store)) });
    const text = await (await app.handle(chatRequest())).text();
    const replay = await app.handle(chatRequest({ headers: { Range: 'bytes=3-' } }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('Content-Range')).toBeNull();
    expect(replay.headers.get('X-Idempotent-Generation')).toBeNull();
    expect(await replay.text()).toBe(text);
    expect(app.calls).toHaveLength(1);
  });
});
