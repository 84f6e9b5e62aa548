/**
 * `resume()` is no open relay (PROTOCOL.md § 13): storage is data, not instructions. A
 * stored intent goes again only to the origin this client sends to, and only when it is
 * a record the client could have written; any other is refused once — a
 * `StoredIntentError` and a `settled` event — and removed, with nothing sent.
 */

import { isStoredIntentError, memoryStorageAdapter, type StoredIntent, webStorageAdapter } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { memoryArea } from '../../support/memory-area.js';
import { BASE, scriptedClient } from '../../support/scripted-fetch.js';

const ID = '01JRESUMECHECKS000000000001';
const record = (changes: Record<string, unknown> = {}) => ({
  v: 1,
  requestId: ID,
  input: 'chat',
  url: `${BASE}chat`,
  method: 'POST',
  headers: [['content-type', 'application/json']],
  body: '{"q":1}',
  createdAt: 1,
  ...changes,
});

describe('resume(): where a stored intent may go', () => {
  it('never sends a stored intent to another origin with the client’s headers: refused once, removed, nothing sent', async () => {
    const storage = memoryStorageAdapter();
    await storage.save(record({ url: 'https://collector.example/steal' }) as unknown as StoredIntent);
    const { server, client, settled } = scriptedClient(() => Response.json({ ok: true }), {
      storage,
      headers: { authorization: 'Bearer secret' },
    });
    const [outcome, ...more] = await client.resume();
    expect(more).toEqual([]);
    expect(outcome).toMatchObject({ requestId: ID, ok: false });
    const error = (outcome as { error: unknown }).error;
    expect(isStoredIntentError(error)).toBe(true);
    expect((error as Error).message).toMatch(/collector\.example.*not on the origin this client sends to/);
    expect(server.seen).toEqual([]);
    expect(await storage.list()).toEqual([]);
    expect(settled()).toMatchObject([{ requestId: ID, outcome: 'failed' }]);
    expect(await client.resume()).toEqual([]);
  });

  it('still resumes a stored intent on the client’s own origin, with its ID', async () => {
    const storage = memoryStorageAdapter();
    await storage.save(record() as unknown as StoredIntent);
    const { server, client } = scriptedClient(() => Response.json({ ok: true }), { storage });
    const [outcome] = await client.resume();
    expect(outcome).toMatchObject({ ok: true, result: { data: { ok: true } } });
    expect(server.seen.map((seen) => [seen.url, seen.id, seen.body])).toEqual([[`${BASE}chat`, ID, '{"q":1}']]);
  });
});

describe('resume(): records it can never send', () => {
  it.each([
    ['an invalid requestId', { requestId: 'x' }, 'x'],
    ['a relative url', { url: '/api/chat' }, ID],
    ['headers that are not an array', { headers: 'content-type: text/plain' }, ID],
    ['a header that is not a pair of strings', { headers: [['x-a', 1]] }, ID],
    ['a body that is not a string', { body: 42 }, ID],
    ['a method that is not one', { method: 'GE T' }, ID],
    ['a url that is not http(s)', { url: 'javascript:alert(1)' }, ID],
  ])('refuses %s once with StoredIntentError and removes it, nothing sent', async (_what, changes, requestId) => {
    const area = memoryArea();
    area.setItem(`answer-once:${requestId}`, JSON.stringify(record({ ...changes })));
    const { server, client } = scriptedClient(() => Response.json({ ok: true }), {
      storage: webStorageAdapter(area),
    });
    const outcomes = await client.resume();
    expect(outcomes).toHaveLength(1);
    expect(isStoredIntentError((outcomes[0] as { error?: unknown }).error)).toBe(true);
    expect(server.seen).toEqual([]);
    expect(area.length).toBe(0);
    expect(await client.resume()).toEqual([]);
  });
});
