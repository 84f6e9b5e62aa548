import {
  createClient,
  memoryStorageAdapter,
  type StorageAdapter,
  type StoredIntent,
  sessionStorageAdapter,
  UnreplayableBodyError,
  webStorageAdapter,
} from 'answer-once';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { memoryArea } from '../../support/memory-area.js';
import { createProtocolFake, idOf, ORIGIN, useMsw } from '../../support/protocol-fake.js';

const server = await useMsw();

/** The same storage, but the tab "closes" before the intent settles: nothing is removed. */
function closingTab(storage: StorageAdapter): StorageAdapter {
  return { ...storage, remove: () => undefined };
}

describe('storage of pending intents', () => {
  it('writes the pending intent before the first attempt leaves and removes it when the answer comes', async () => {
    const storage = memoryStorageAdapter();
    const duringRequest: StoredIntent[][] = [];
    server.use(
      http.put(`${ORIGIN}/chat`, async () => {
        duringRequest.push([...(await storage.list())]);
        return HttpResponse.json({ ok: true });
      }),
    );
    const client = createClient({ baseUrl: ORIGIN, storage });
    const result = await client.send('chat', { method: 'put', json: { content: 'hi' }, headers: { 'X-Thread': 't1' } });
    expect(duringRequest).toEqual([
      [
        {
          v: 1,
          requestId: result.requestId,
          input: 'chat',
          url: `${ORIGIN}/chat`,
          method: 'PUT',
          headers: [
            ['content-type', 'application/json'],
            ['x-thread', 't1'],
          ],
          body: '{"content":"hi"}',
          createdAt: expect.any(Number),
        },
      ],
    ]);
    expect(await storage.list()).toEqual([]);
  });

  it('removes the pending intent when it fails too', async () => {
    const storage = memoryStorageAdapter();
    server.use(http.post(`${ORIGIN}/chat`, () => new HttpResponse(null, { status: 400 })));
    await createClient({ baseUrl: ORIGIN, storage })
      .send('chat', { json: {} })
      .catch(() => undefined);
    expect(await storage.list()).toEqual([]);
  });

  it('resume() finishes an intent a closed tab left pending, with its original ID, without running the work again', async () => {
    const area = memoryArea();
    const fake = createProtocolFake({ loseRate: 1, random: () => 0 });
    server.use(...fake.handlers);
    // The first page: the work runs, the response is lost, the tab closes.
    const firstPage = createClient({ baseUrl: ORIGIN, storage: closingTab(webStorageAdapter(area)), retry: 0 });
    const lost = await firstPage.send('chat', { json: { content: 'hello' } }).catch((e: { requestId: string }) => e);
    expect(fake.stats.workRuns).toBe(1);

    // The reloaded page: same storage, the network is fine again.
    const fixed = createProtocolFake();
    fixed.records.set(lost.requestId, fake.records.get(lost.requestId)!);
    server.use(...fixed.handlers);
    const reloaded = createClient({ baseUrl: ORIGIN, storage: webStorageAdapter(area) });
    expect(await reloaded.pending('chat')).toEqual({
      v: 1,
      requestId: lost.requestId,
      input: 'chat',
      url: `${ORIGIN}/chat`,
      method: 'POST',
      headers: [['content-type', 'application/json']],
      body: '{"content":"hello"}',
      createdAt: expect.any(Number),
    });
    const outcomes = await reloaded.resume();
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: true, requestId: lost.requestId, input: 'chat' });
    const { result } = outcomes[0] as { result: { data: unknown; replayed: boolean; requestId: string } };
    expect(result).toMatchObject({ requestId: lost.requestId, replayed: true, data: { echo: { content: 'hello' } } });
    expect(fixed.stats.workRuns).toBe(0);
    expect(area.length).toBe(0);
  });

  it("resume() reports each pending intent's outcome, failures included", async () => {
    const storage = memoryStorageAdapter();
    const seen: (string | undefined)[] = [];
    server.use(
      http.post(`${ORIGIN}/ok`, ({ request }) => (seen.push(idOf(request)), HttpResponse.json({ fine: true }))),
      http.post(`${ORIGIN}/gone`, ({ request }) => (seen.push(idOf(request)), new HttpResponse(null, { status: 404 }))),
    );
    const base = { v: 1, method: 'POST', headers: [], createdAt: 1 } as const;
    await storage.save({ ...base, requestId: 'pending-ok-0001', input: 'ok', url: `${ORIGIN}/ok` });
    await storage.save({ ...base, requestId: 'pending-gone-001', input: 'gone', url: `${ORIGIN}/gone`, createdAt: 2 });
    const outcomes = await createClient({ storage }).resume();
    expect(outcomes.map((o) => [o.requestId, o.ok])).toEqual([
      ['pending-ok-0001', true],
      ['pending-gone-001', false],
    ]);
    expect(seen.sort()).toEqual(['pending-gone-001', 'pending-ok-0001']);
    expect(await storage.list()).toEqual([]);
  });

  it('resume() without storage finishes nothing', async () => {
    expect(await createClient().resume()).toEqual([]);
  });

  it('refuses a body it cannot store (a stream) with a clear error, before sending anything', async () => {
    const seen: Request[] = [];
    server.use(http.post(`${ORIGIN}/upload`, ({ request }) => (seen.push(request), HttpResponse.json({}))));
    const stream = () => new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('x')), c.close()) });
    const storage = memoryStorageAdapter();
    const error = await createClient({ baseUrl: ORIGIN, storage })
      .send('upload', { body: stream() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreplayableBodyError);
    expect((error as Error).message).toMatch(/stream body cannot be stored/);
    expect((error as UnreplayableBodyError).retryable).toBe(false); // the same body fails the same way
    expect(seen).toHaveLength(0);
    expect(await storage.list()).toEqual([]);
    // Without storage the same body is simply sent.
    await createClient({ baseUrl: ORIGIN }).send('upload', { body: stream() });
    expect(seen).toHaveLength(1);
  });

  it('stores form fields, and resending the stored record sends the same fields, but refuses FormData that carries a file', async () => {
    const storage = memoryStorageAdapter();
    const received: (string | null)[] = [];
    const stored: StoredIntent[] = [];
    server.use(
      http.post(`${ORIGIN}/form`, async ({ request }) => {
        stored.push(...(await storage.list()));
        received.push((await request.formData()).get('content') as string | null);
        return HttpResponse.json({ ok: true });
      }),
    );
    const client = createClient({ baseUrl: ORIGIN, storage });
    const fields = new FormData();
    fields.set('content', 'hi');
    await expect(client.send('form', { body: fields })).resolves.toMatchObject({ data: { ok: true } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.headers[0]).toEqual(['content-type', expect.stringMatching(/^multipart\/form-data; boundary=/)]);
    // The record is enough to send the very same form again after a reload.
    await client.resend(stored[0]!);
    expect(received).toEqual(['hi', 'hi']);
    const withFile = new FormData();
    withFile.set('file', new Blob(['data']), 'a.txt');
    await expect(client.send('form', { body: withFile })).rejects.toBeInstanceOf(UnreplayableBodyError);
  });

  it('explains that sessionStorage is missing outside the browser when first used', () => {
    const adapter = sessionStorageAdapter();
    expect(() => adapter.list()).toThrow(/sessionStorage is not available here; use memoryStorageAdapter\(\)/);
  });

  it('rejects an empty or non-string prefix with a TypeError naming it, before touching storage', () => {
    const area = memoryArea();
    for (const prefix of ['', 42 as never]) {
      expect(() => webStorageAdapter(area, { prefix })).toThrow(TypeError);
      expect(() => webStorageAdapter(area, { prefix })).toThrow('answer-once: `prefix` must be a non-empty string; got ');
    }
    expect(area.length).toBe(0);
  });

  it('lists only the records it wrote, skipping anything else under its prefix', async () => {
    const area = memoryArea();
    const adapter = webStorageAdapter(area);
    const record: StoredIntent = {
      v: 1,
      requestId: 'req-kept-0001',
      input: 'chat',
      url: `${ORIGIN}/chat`,
      method: 'POST',
      headers: [],
      createdAt: 1,
    };
    await adapter.save(record);
    area.setItem('answer-once:junk', '{not json');
    area.setItem('answer-once:future', JSON.stringify({ ...record, v: 2, requestId: 'req-future-01' }));
    area.setItem('answer-once:number', '42');
    area.setItem('answer-once:no-url', JSON.stringify({ v: 1, requestId: 'req-no-url-01', headers: [] }));
    area.setItem('other-app', '{}');
    expect(await adapter.list()).toEqual([record]);
  });
});
