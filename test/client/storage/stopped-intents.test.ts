/**
 * `storage/stopped.ts`, the rules of what a stop leaves in storage, one by one: a new
 * record removes the stopped records sent to the same input before it (and only those);
 * a stopped ID keeps its record past a settle that was not a replay, and lets it go at the
 * first replay; the records saved lately are remembered, the newest 32.
 */

import { memoryStorageAdapter, type StoredIntent } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { stoppedIntents } from '../../../src/client/storage/stopped.js';

const record = (n: number, input: string, stopped?: boolean): StoredIntent => ({
  v: 1,
  requestId: `01JSTOPPEDINTENTS${String(n).padStart(9, '0')}`,
  input,
  url: `http://127.0.0.1:9/${input}`,
  method: 'POST',
  headers: [],
  createdAt: n,
  ...(stopped && { stopped }),
});

describe('stoppedIntents', () => {
  it('removes the stopped records sent to the same input when a new record is saved, and no other', async () => {
    const storage = memoryStorageAdapter();
    const stoppedSame = record(1, 'chat', true);
    const pendingSame = record(2, 'chat');
    const stoppedOther = record(3, 'other', true);
    for (const intent of [stoppedSame, pendingSame, stoppedOther]) await storage.save(intent);
    const stopped = stoppedIntents(storage);
    stopped.mark(stoppedSame.requestId);
    stopped.mark(stoppedOther.requestId);

    const next = record(4, 'chat');
    await storage.save(next);
    await stopped.saved(next);

    expect((await storage.list()).map((intent) => intent.requestId)).toEqual([
      pendingSame.requestId,
      stoppedOther.requestId,
      next.requestId,
    ]);
    // The removed one is forgotten as stopped; the other input's stays.
    expect(stopped.keep(stoppedSame.requestId, false)).toBe(false);
    expect(stopped.keep(stoppedOther.requestId, false)).toBe(true);
  });

  it('leaves a stopped record alone when it is the one saved again (a resend of it)', async () => {
    const storage = memoryStorageAdapter();
    const resent = record(5, 'chat', true);
    await storage.save(resent);
    await stoppedIntents(storage).saved(resent);
    expect(await storage.list()).toEqual([resent]);
  });

  it('keeps a stopped ID past any settle that is not a replay, and lets it go at the first replay', () => {
    const stopped = stoppedIntents(memoryStorageAdapter());
    const id = record(6, 'chat').requestId;
    expect(stopped.keep(id, false)).toBe(false); // never stopped: forgotten as usual
    stopped.mark(id);
    expect(stopped.keep(id, false)).toBe(true);
    expect(stopped.keep(id, false)).toBe(true); // still kept: only a replay releases it
    expect(stopped.keep(id, true)).toBe(false);
    expect(stopped.keep(id, false)).toBe(false); // released: forgotten as usual
  });

  it('marks a stored intent sent again when its record says stopped, and only then', () => {
    const stopped = stoppedIntents(memoryStorageAdapter());
    const stoppedRecord = record(7, 'chat', true);
    const pendingRecord = record(8, 'chat');
    stopped.resent(stoppedRecord);
    stopped.resent(pendingRecord);
    expect(stopped.keep(stoppedRecord.requestId, false)).toBe(true);
    expect(stopped.keep(pendingRecord.requestId, false)).toBe(false);
  });

  it('remembers the newest 32 records saved, without storage too', async () => {
    const stopped = stoppedIntents(undefined);
    const saved = Array.from({ length: 33 }, (_, i) => record(100 + i, `chat/${i}`));
    for (const intent of saved.slice(0, 32)) await stopped.saved(intent);
    expect(stopped.recent.size).toBe(32);
    expect(stopped.recent.get(saved[0]!.requestId)).toEqual(saved[0]);

    await stopped.saved(saved[32]!);
    expect(stopped.recent.size).toBe(32);
    expect(stopped.recent.has(saved[0]!.requestId)).toBe(false);
    expect(stopped.recent.get(saved[1]!.requestId)).toEqual(saved[1]);
    expect(stopped.recent.get(saved[32]!.requestId)).toEqual(saved[32]);
  });
});
