/**
 * The head a log keeps (PROTOCOL.md § 14.2) is read back before an attach: a log whose
 * head is not an answer head (written by another version, or corrupted in the store)
 * is refused, never answered with a status and headers made up from it.
 */

import { encodeKey, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, statusRequest } from '../../support/server-support.js';

const ID = 'req-0000000001';

/** A live intent of alice's whose log was opened with `head`, as another writer left it. */
async function liveLogWithHead(head: string) {
  const store = new MemoryStore();
  const key = encodeKey({ user: 'alice', session: '' }, ID);
  const claim = await store.acquire(key, 'fingerprint', 30_000);
  if (!claim.acquired) throw new Error('the key was not free');
  const data = new TextEncoder().encode('data: first\n\n');
  expect(await store.append(key, claim.token, { offset: 0, data, head })).toMatchObject({ ok: true });
  return chatApp({ store });
}

describe('createIdempotencyHandler: the logged head', () => {
  it('attaches to a live log whose head is an answer head, with its status and headers', async () => {
    const app = await liveLogWithHead(
      JSON.stringify({ v: 1, status: 201, headers: [['content-type', 'text/event-stream']] }),
    );
    const attached = await app.handle(statusRequest(ID));
    expect(attached.status).toBe(201);
    expect(attached.headers.get('Content-Type')).toBe('text/event-stream');
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    await attached.body?.cancel();
  });

  it.each([
    ['null', 'null'],
    ['of another version', JSON.stringify({ v: 2, status: 200, headers: [] })],
    ['without a status', JSON.stringify({ v: 1, headers: [] })],
    ['with a status that is not a number', JSON.stringify({ v: 1, status: '200', headers: [] })],
    ['without headers', JSON.stringify({ v: 1, status: 200 })],
  ])('refuses to attach to a live log whose head is %s: a TypeError naming the logged head', async (_, head) => {
    const app = await liveLogWithHead(head);
    const refused = app.handle(statusRequest(ID));
    await expect(refused).rejects.toBeInstanceOf(TypeError);
    // The store's log is named, not some property of `null` the handler tripped over.
    await expect(refused).rejects.toThrow(/logged head/);
    expect(app.calls).toHaveLength(0);
  });
});
