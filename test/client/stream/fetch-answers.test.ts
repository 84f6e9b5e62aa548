/**
 * What client.fetch resolves with and when the intent settles, through a stub fetch: the
 * answer's status, statusText and headers (Content-Length dropped for an event stream), an
 * error status resolved with its data, empty answers (204, 304, HEAD) settled at once, the
 * settled event (answered / failed, replayed, attempts, polls) once when the body ends or is
 * cancelled, and storage kept while the body streams.
 */

import { createClient, memoryStorageAdapter, type SendEvent, streaming } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { cutBody, scripted, watchedBody } from '../../support/scripted-fetch.js';
import { sleep } from '../../support/sleep.js';

const BASE = 'http://127.0.0.1:9/';

function rig(answer: Parameters<typeof scripted>[0], options: Parameters<typeof createClient>[0] = {}) {
  const server = scripted(answer);
  const events: SendEvent[] = [];
  const storage = memoryStorageAdapter();
  const client = createClient({
    streaming,
    baseUrl: BASE,
    fetch: server.fetch,
    storage,
    retry: { delay: 0, limit: 1 },
    onEvent: (event) => events.push(event),
    ...options,
  });
  const settled = () => events.filter((event) => event.type === 'settled');
  return { server, client, events, settled, storage };
}

describe('client.fetch: the Response', () => {
  it('keeps status, statusText and headers; drops Content-Length of an event stream only', async () => {
    const sse = rig(
      () =>
        new Response('data: a\n\n', {
          status: 201,
          statusText: 'Made',
          headers: { 'content-type': 'text/event-stream', 'content-length': '9', 'x-app': 'y' },
        }),
    );
    const response = await sse.client.fetch(`${BASE}a`, { method: 'POST', body: 'x' });
    expect([response.status, response.statusText, response.headers.get('x-app')]).toEqual([201, 'Made', 'y']);
    expect(response.headers.get('content-length')).toBeNull();
    expect(await response.text()).toBe('data: a\n\n');
    const text = rig(() => new Response('abc', { headers: { 'content-type': 'text/plain', 'content-length': '3' } }));
    const plain = await text.client.fetch(`${BASE}a`);
    expect(plain.headers.get('content-length')).toBe('3');
    expect(await plain.text()).toBe('abc');
  });

  it('resolves an error status with its answer rebuilt: status, statusText, headers and body (JSON or text)', async () => {
    const json = rig(() => Response.json({ code: 'nope' }, { status: 422, statusText: 'Bad', headers: { 'x-app': 'e' } }));
    const response = await json.client.fetch(`${BASE}a`, { method: 'POST', body: 'x' });
    expect([response.status, response.statusText, response.headers.get('x-app')]).toEqual([422, 'Bad', 'e']);
    expect(await response.json()).toEqual({ code: 'nope' });
    expect(json.settled()).toMatchObject([{ outcome: 'failed' }]);
    const text = rig(() => new Response('not found here', { status: 404, headers: { 'content-type': 'text/plain' } }));
    expect(await (await text.client.fetch(`${BASE}a`)).text()).toBe('not found here');
    const empty = rig(() => new Response(null, { status: 304 }));
    const notModified = await empty.client.fetch(`${BASE}a`);
    expect([notModified.status, notModified.body]).toEqual([304, null]);
  });

  it('rejects what is not an answer: a network failure after the retries', async () => {
    const { client } = rig(() => Promise.reject(new TypeError('fetch failed')));
    await expect(client.fetch(`${BASE}a`)).rejects.toMatchObject({ name: 'ConnectionError' });
  });

  it('settles an empty answer at once and hands it as it came: 204, 304 and HEAD (even with a body)', async () => {
    for (const [status, method] of [
      [204, 'POST'],
      [200, 'head'],
    ] as const) {
      const { client, settled, storage } = rig(() => new Response(status === 204 ? null : 'stray', { status }));
      const response = await client.fetch(`${BASE}a`, { method, body: method === 'POST' ? 'x' : null });
      expect(response.status).toBe(status);
      expect(settled()).toMatchObject([{ outcome: 'answered', replayed: false, attempts: 1 }]);
      await sleep(0);
      expect(await storage.list()).toHaveLength(0);
    }
  });
});

describe('client.fetch: settling when the body ends', () => {
  it('keeps the intent stored while the body streams; settles answered once with attempts and replayed when it ends', async () => {
    const { client, settled, storage } = rig((_request, n) =>
      n === 1
        ? new Response('busy', { status: 503 })
        : new Response('done', { headers: { 'x-idempotent-replayed': 'true' } }),
    );
    const response = await client.fetch(`${BASE}a`, { method: 'POST', body: 'x' });
    expect(settled()).toEqual([]);
    expect(await storage.list()).toHaveLength(1);
    expect(await response.text()).toBe('done');
    expect(settled()).toMatchObject([{ outcome: 'answered', replayed: true, attempts: 2, polls: 0 }]);
    await sleep(0);
    expect(await storage.list()).toHaveLength(0);
  });

  it('counts the status polls in the settled event: an intent answered 202 first, then polled', async () => {
    const { client, settled, events } = rig((_request, n) =>
      n === 1
        ? new Response(null, { status: 202, headers: { location: `${BASE}status/x`, 'retry-after': '0' } })
        : new Response('done'),
    );
    const response = await client.fetch(`${BASE}a`, { method: 'POST', body: 'x' });
    expect(await response.text()).toBe('done');
    expect(events.filter((event) => event.type === 'poll')).toHaveLength(1);
    expect(settled()).toMatchObject([{ outcome: 'answered', attempts: 1, polls: 1 }]);
  });

  it('settles failed with the reason when the body is cancelled (an Error as is, anything else wrapped) and forgets it', async () => {
    const reasons: unknown[] = [new RangeError('gone'), 'bye'];
    for (const reason of reasons) {
      const watched = watchedBody('part');
      const { client, settled, storage } = rig(() => new Response(watched.body));
      const response = await client.fetch(`${BASE}a`, { method: 'POST', body: 'x' });
      await response.body!.cancel(reason);
      expect(watched.cancelled()).toBe(true);
      const [event] = settled();
      expect(event).toMatchObject({ outcome: 'failed', attempts: 1, polls: 0 });
      const error = (event as { error: Error }).error;
      if (reason instanceof Error) expect(error).toBe(reason);
      else expect([error instanceof Error, error.message]).toEqual([true, 'bye']);
      await sleep(0);
      expect(await storage.list()).toHaveLength(0);
    }
  });

  it('settles once when a reconnect fails: the failed send settled it already', async () => {
    const { client, settled } = rig((_request, n) =>
      n === 1 ? new Response(cutBody('')) : Response.json({ code: 'x' }, { status: 400 }),
    );
    const response = await client.fetch(`${BASE}a`, { method: 'POST', body: 'x' });
    await expect(response.text()).rejects.toMatchObject({ name: 'ResponseError', status: 400 });
    await sleep(0);
    expect(settled()).toMatchObject([{ outcome: 'failed' }]);
  });

  it('aborts by a Request’s own signal', async () => {
    const controller = new AbortController();
    const { client, settled } = rig(() => new Response(watchedBody('part').body));
    const response = await client.fetch(new Request(`${BASE}a`, { signal: controller.signal }));
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(settled()).toMatchObject([{ outcome: 'failed' }]);
  });
});
