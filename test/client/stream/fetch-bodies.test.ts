/**
 * client.fetch with the bodies fetch itself takes (a form, URL parameters) and across a
 * reconnect: the body goes out with the content type fetch would give it, and a body that
 * resumes after a cut is still one intent (one settled event, its attempts counted).
 */

import { memoryStorageAdapter } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { BASE, cutBody, scriptedClient as rig } from '../../support/scripted-fetch.js';

describe('client.fetch: a form or URL parameters as the body', () => {
  it('sends URL parameters as a urlencoded form, on the first attempt and the retry', async () => {
    const { server, client } = rig(
      (_request, n) => new Response(n === 1 ? 'busy' : 'done', { status: n === 1 ? 503 : 200 }),
    );
    const response = await client.fetch(`${BASE}a`, { method: 'POST', body: new URLSearchParams({ a: '1', b: 'x y' }) });
    expect(await response.text()).toBe('done');
    expect(server.seen.map((s) => [s.contentType, s.body])).toEqual([
      ['application/x-www-form-urlencoded;charset=UTF-8', 'a=1&b=x+y'],
      ['application/x-www-form-urlencoded;charset=UTF-8', 'a=1&b=x+y'],
    ]);
  });

  it('sends a FormData as multipart the server can parse', async () => {
    const forms: (string | null)[] = [];
    const { server, client } = rig(async (request) => {
      forms.push(String((await request.formData()).get('name')));
      return new Response('done');
    });
    const form = new FormData();
    form.set('name', 'Ada');
    expect(await (await client.fetch(`${BASE}a`, { method: 'POST', body: form })).text()).toBe('done');
    expect(server.seen[0]!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(forms).toEqual(['Ada']);
  });
});

describe('client.fetch: a body resumed after a cut', () => {
  it('settles once, when the body ends, counting both attempts; the stored intent stays until then', async () => {
    const storage = memoryStorageAdapter();
    let storedDuringResume: number | undefined;
    const { client, settled } = rig(
      async (_request, n) => {
        if (n === 2) storedDuringResume = (await storage.list()).length;
        return new Response(n === 1 ? cutBody('') : 'whole');
      },
      { storage },
    );
    expect(await (await client.fetch(`${BASE}a`, { method: 'POST', body: 'q' })).text()).toBe('whole');
    expect(settled()).toMatchObject([{ outcome: 'answered', attempts: 2 }]);
    expect(storedDuringResume).toBe(1);
    expect(await storage.list()).toEqual([]);
  });

  it('fails with the attempts counted when every reconnect is cut', async () => {
    const { client, settled } = rig(() => new Response(cutBody('')), { retry: { delay: 0, limit: 1 } });
    const response = await client.fetch(`${BASE}a`, { method: 'POST', body: 'q' });
    const error = await response.text().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ name: 'ConnectionError', attempts: 2 });
    expect(settled()).toMatchObject([{ outcome: 'failed', attempts: 2 }]);
  });
});

describe('client.fetch: a reconnect that fails with an error of its own', () => {
  it('settles the intent once, failed, when the reconnect’s fetch rejects with something not a network error', async () => {
    const boom = new Error('the app’s fetch gave up');
    const { client, settled } = rig((_request, n) => (n === 1 ? new Response(cutBody('')) : Promise.reject(boom)));
    const response = await client.fetch(`${BASE}a`, { method: 'POST', body: 'q' });
    await expect(response.text()).rejects.toBe(boom);
    expect(settled()).toMatchObject([{ outcome: 'failed', error: boom }]);
  });
});

describe('client.fetch: an answer without a body', () => {
  it('resolves a 200 an app’s fetch answers with no body as it came, settled at once', async () => {
    const { client, settled } = rig(() => new Response(null, { status: 200 }));
    const response = await client.fetch(`${BASE}a`, { method: 'POST', body: 'q' });
    expect([response.status, response.body]).toEqual([200, null]);
    expect(settled()).toMatchObject([{ outcome: 'answered', attempts: 1 }]);
  });
});
