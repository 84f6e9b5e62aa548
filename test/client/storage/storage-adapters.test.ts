/**
 * The storage adapters on their own (`memoryStorageAdapter`, `webStorageAdapter`,
 * `sessionStorageAdapter`, `localStorageAdapter`): oldest intent first, only the entries
 * under the adapter's prefix that are records this version wrote, the Web Storage areas
 * resolved on first use; and which bodies a client with storage refuses, named by kind.
 */

import {
  createClient,
  localStorageAdapter,
  memoryStorageAdapter,
  type StoredIntent,
  sessionStorageAdapter,
  UnreplayableBodyError,
  webStorageAdapter,
} from 'answer-once';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storedIntentProblem } from '../../../src/client/storage/validate.js';
import { memoryArea } from '../../support/memory-area.js';

const isStoredIntent = (value: unknown) => storedIntentProblem(value, undefined) === undefined;

afterEach(() => vi.unstubAllGlobals());

const record = (n: number, createdAt: number): StoredIntent => ({
  v: 1,
  requestId: `01JSTORAGEADAPTERS0000000${n}`,
  input: 'chat',
  url: 'http://127.0.0.1:9/chat',
  method: 'POST',
  headers: [],
  createdAt,
});

describe('the storage adapters', () => {
  it.each([
    ['memoryStorageAdapter', () => memoryStorageAdapter()],
    ['webStorageAdapter', () => webStorageAdapter(memoryArea())],
  ])('%s lists the oldest intent first, whatever order they were saved in', async (_, make) => {
    const storage = make();
    const [newer, oldest, middle] = [record(1, 300), record(2, 100), record(3, 200)];
    for (const intent of [newer, oldest, middle]) await storage.save(intent);
    expect(await storage.list()).toEqual([oldest, middle, newer]);
  });

  it("lists only the records under the web adapter's prefix, skipping what is not a record", async () => {
    const shared = memoryArea();
    const ours = webStorageAdapter(shared, { prefix: 'mine:' });
    await ours.save(record(1, 1));
    shared.setItem(`theirs:${record(2, 2).requestId}`, JSON.stringify(record(2, 2))); // another app's, same shape
    shared.setItem('mine:null', 'null');
    shared.setItem('mine:text', '"a string"');
    shared.setItem('mine:broken', '{not json');
    shared.setItem('mine:old', JSON.stringify({ ...record(3, 3), v: 0 }));
    expect(await ours.list()).toEqual([record(1, 1)]);
  });

  it('names a bad options argument and an empty prefix', () => {
    expect(() => webStorageAdapter(memoryArea(), 5 as never)).toThrow(/`options` must be/);
    expect(() => webStorageAdapter(memoryArea(), { prefix: '' })).toThrow(/`prefix` must be a non-empty string/);
  });

  it.each([
    ['sessionStorage', sessionStorageAdapter],
    ['localStorage', localStorageAdapter],
  ] as const)('%s: resolves the area on first use, and names it when there is none', async (name, adapter) => {
    const storage = adapter();
    expect(() => storage.list()).toThrow(new RegExp(`${name} is not available here`));
    const stubbed = memoryArea();
    vi.stubGlobal(name, stubbed);
    await storage.save(record(1, 1));
    expect(stubbed.length).toBe(1);
    expect(await storage.list()).toEqual([record(1, 1)]);
  });

  it('tells a record this version wrote from anything else', () => {
    expect(isStoredIntent(record(1, 1))).toBe(true);
    for (const value of [
      null,
      undefined,
      'text',
      42,
      [],
      { ...record(1, 1), v: 2 },
      { ...record(1, 1), headers: 'x' },
      { ...record(1, 1), requestId: 7 },
    ]) {
      expect(isStoredIntent(value)).toBe(false);
    }
  });
});

describe('a body a client with storage cannot keep', () => {
  it.each([
    ['stream', () => new ReadableStream()],
    ['Blob', () => new Blob(['x'])],
    ['binary', () => new Uint8Array([1, 2])],
    ['binary', () => new ArrayBuffer(2)],
    [
      'FormData with files',
      () => {
        const form = new FormData();
        form.append('file', new Blob(['x']), 'x.txt');
        return form;
      },
    ],
  ])('refuses a %s body before sending anything, naming its kind', async (kind, body) => {
    const sent: Request[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => (
      sent.push(new Request(input, init)), Response.json({})
    )) as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://127.0.0.1:9/', fetch, storage: memoryStorageAdapter() });
    const error = await client.send('upload', { body: body() }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UnreplayableBodyError);
    expect((error as Error).message).toContain(`a ${kind} body cannot be stored`);
    expect(sent).toEqual([]);
  });

  it('keeps a form of strings, and any body when the client has no storage', async () => {
    const fetch = (async () => Response.json({ ok: true })) as typeof globalThis.fetch;
    const form = new FormData();
    form.append('q', 'hi');
    const stored = createClient({ baseUrl: 'http://127.0.0.1:9/', fetch, storage: memoryStorageAdapter() });
    expect((await stored.send('form', { body: form })).data).toEqual({ ok: true });
    const plain = createClient({ baseUrl: 'http://127.0.0.1:9/', fetch });
    expect((await plain.send('upload', { body: new Blob(['x']) })).data).toEqual({ ok: true });
  });
});
