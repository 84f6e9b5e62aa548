/**
 * `storageAdapter(yours)`: an app's own `IntentStorage` as the client's `storage`. It
 * brings what the client does with stored intents, so a client given no storage bundles
 * none of it; a plain `{ save, remove, list }` handed in as it is gets an error naming the
 * fix rather than a client that silently resumes nothing.
 */
import {
  createClient,
  type IntentStorage,
  memoryStorageAdapter,
  type StoredIntent,
  storageAdapter,
  streaming,
} from 'answer-once';
import { describe, expect, it } from 'vitest';
import { createProtocolFake, ORIGIN, useMsw } from '../../support/protocol-fake.js';

const server = await useMsw();

/** An app's own storage: a Map, not built by answer-once, its methods on a class. */
class MapStorage implements IntentStorage {
  readonly records = new Map<string, StoredIntent>();
  save(intent: StoredIntent): void {
    this.records.set(intent.requestId, intent);
  }
  remove(requestId: string): void {
    this.records.delete(requestId);
  }
  list(): StoredIntent[] {
    return [...this.records.values()];
  }
}

describe('storageAdapter', () => {
  it('makes your own IntentStorage one a reloaded page resumes from, with the intent’s original ID', async () => {
    const yours = new MapStorage();
    const lost = createProtocolFake({ loseRate: 1, random: () => 0 });
    server.use(...lost.handlers);
    // The first page's tab closes before its intent settles: nothing is removed.
    const closing = storageAdapter({ save: (i) => yours.save(i), list: () => yours.list(), remove: () => undefined });
    const first = createClient({ baseUrl: ORIGIN, storage: closing, retry: 0 });
    const failed = await first.send('chat', { json: { content: 'hello' } }).catch((e: { requestId: string }) => e);
    expect([...yours.records.keys()]).toEqual([failed.requestId]);

    const fixed = createProtocolFake();
    fixed.records.set(failed.requestId, lost.records.get(failed.requestId)!);
    server.use(...fixed.handlers);
    const reloaded = createClient({ baseUrl: ORIGIN, storage: storageAdapter(yours) });
    const [outcome] = await reloaded.resume();
    expect(outcome).toMatchObject({ ok: true, requestId: failed.requestId, result: { replayed: true } });
    expect(fixed.stats.workRuns).toBe(0);
    expect(yours.records.size).toBe(0);
  });

  it('names the method a storage lacks', () => {
    expect(() => storageAdapter({ save: () => undefined, remove: () => undefined } as never)).toThrow(
      'answer-once: `list` must be a function; got undefined.',
    );
  });
});

describe('createClient: storage', () => {
  it('refuses your own IntentStorage handed in as it is, naming storageAdapter(yours)', () => {
    const plain = { save: () => undefined, remove: () => undefined, list: () => [] };
    expect(() => createClient({ storage: plain as never })).toThrow(/own IntentStorage as storageAdapter\(yours\)/);
  });

  it('keeps what a spread of a built-in adapter overrides, and stays resumable', async () => {
    const memory = memoryStorageAdapter();
    const saved: string[] = [];
    const storage = { ...memory, save: (intent: StoredIntent) => (saved.push(intent.requestId), memory.save(intent)) };
    server.use(...createProtocolFake().handlers);
    const result = await createClient({ baseUrl: ORIGIN, storage }).send('chat', { json: { q: 1 } });
    expect(saved).toEqual([result.requestId]);
  });
});

describe('a client without storage or an outbox', () => {
  it('resumes nothing, finds nothing pending, and refuses to resend a stored intent, naming the option', async () => {
    const client = createClient({ baseUrl: ORIGIN });
    expect(await client.resume()).toEqual([]);
    expect(await client.pending('chat')).toBeUndefined();
    const stored: StoredIntent = {
      v: 1,
      requestId: '01JSTORAGEADAPTER000000001',
      input: 'chat',
      url: `${ORIGIN}/chat`,
      method: 'POST',
      headers: [],
      createdAt: 0,
    };
    const refused = 'answer-once: only a client with `storage` checks and sends a stored intent: createClient({ storage }).';
    await expect(client.resend(stored)).rejects.toThrow(refused);
    await expect(createClient({ baseUrl: ORIGIN, streaming }).stream(stored)).rejects.toThrow(refused);
  });
});
