/**
 * client.fetch's request and answer handling, seen through a stub fetch: the request that
 * goes out (method upper-cased, URL from a string, URL or Request, headers kept, the ID
 * header taken from the caller's request and set once, a bad one refused), the body sent
 * again identically on a retry or reconnect (string, bytes, a stream read once, a
 * Request's own body), the Response it resolves with (error statuses resolved, empty
 * answers as they came), and the settled event and storage when the body ends.
 */

import { memoryStorageAdapter } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { BASE, cutBody, scriptedClient as rig } from '../../support/scripted-fetch.js';

const ID = 'req-edges-0000001';

const ok = () => new Response('the answer', { headers: { 'content-type': 'text/plain' } });
const streamOf = (...chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });

describe('client.fetch: the request it sends', () => {
  it('upper-cases the method, defaults to GET, and takes a Request’s method, URL and headers', async () => {
    const { server, client } = rig(ok);
    await (await client.fetch(`${BASE}a`, { method: 'post', body: 'x' })).text();
    await (await client.fetch(new URL(`${BASE}b?q=1`))).text();
    await (await client.fetch(new Request(`${BASE}c`, { method: 'PUT', body: 'y', headers: { 'x-app': 'r' } }))).text();
    expect(server.seen.map((s) => [s.method, s.url])).toEqual([
      ['POST', `${BASE}a`],
      ['GET', `${BASE}b?q=1`],
      ['PUT', `${BASE}c`],
    ]);
  });

  it('keeps the caller’s headers; init.headers win over a Request’s', async () => {
    const heard: Headers[] = [];
    const { client } = rig((request) => (heard.push(request.headers), ok()));
    await (await client.fetch(`${BASE}a`, { headers: { 'x-app': 'one' } })).text();
    const request = new Request(`${BASE}a`, { headers: { 'x-app': 'request', 'x-other': 'r' } });
    await (await client.fetch(request)).text();
    await (await client.fetch(request, { headers: { 'x-app': 'init' } })).text();
    expect(heard.map((h) => [h.get('x-app'), h.get('x-other')])).toEqual([
      ['one', null],
      ['request', 'r'],
      ['init', null],
    ]);
  });

  it('stores the intent under the URL as given (string, URL or Request)', async () => {
    const storage = memoryStorageAdapter();
    const { client } = rig(ok, { storage });
    const a = await client.fetch(new URL(`${BASE}u`), { method: 'POST', body: 'x' });
    const b = await client.fetch(new Request(`${BASE}r`, { method: 'POST', body: 'y' }));
    expect((await storage.list()).map((intent) => intent.input).sort()).toEqual([`${BASE}r`, `${BASE}u`]);
    await a.text();
    await b.text();
  });
});

describe('client.fetch: the request ID', () => {
  const sentIds = (seen: { id: string | null }[]) => seen.map((s) => s.id);

  it('takes X-Request-Id or Idempotency-Key (quoted or not) and sends it in both headers, naming one ID', async () => {
    const heard: Headers[] = [];
    const { server, client } = rig((request) => (heard.push(request.headers), ok()));
    await (await client.fetch(`${BASE}a`, { headers: { 'X-Request-Id': ID } })).text();
    await (await client.fetch(`${BASE}a`, { headers: { 'Idempotency-Key': `"${ID}-k"` } })).text();
    await (await client.fetch(`${BASE}a`, { headers: { 'X-Request-Id': ` "${ID}-q" ` } })).text();
    expect(sentIds(server.seen)).toEqual([ID, `${ID}-k`, `${ID}-q`]);
    expect(heard.map((h) => h.get('idempotency-key'))).toEqual([`"${ID}"`, `"${ID}-k"`, `"${ID}-q"`]);
  });

  it('prefers the client’s own header, then X-Request-Id, then Idempotency-Key; the others are dropped unchecked', async () => {
    const both = { 'X-Request-Id': `${ID}-x`, 'Idempotency-Key': 'not valid!' };
    const plain = rig(ok);
    await (await plain.client.fetch(`${BASE}a`, { headers: both })).text();
    expect(sentIds(plain.server.seen)).toEqual([`${ID}-x`]);
    const heard: Headers[] = [];
    const keyed = rig((request) => (heard.push(request.headers), ok()), { headerName: 'Idempotency-Key' });
    await (
      await keyed.client.fetch(`${BASE}a`, { headers: { 'X-Request-Id': 'bad id!', 'Idempotency-Key': `${ID}-i` } })
    ).text();
    expect([heard[0]!.get('idempotency-key'), heard[0]!.get('x-request-id')]).toEqual([`"${ID}-i"`, null]);
  });

  it('mints an ID when the request has none, a new one per call', async () => {
    const { server, client } = rig(ok);
    await (await client.fetch(`${BASE}a`)).text();
    await (await client.fetch(`${BASE}a`)).text();
    const [a, b] = sentIds(server.seen);
    expect(a).toMatch(/^[0-9A-Z]{26}$/);
    expect(b).not.toBe(a);
  });

  it('refuses a bad ID with a TypeError naming the header it came in, before sending anything', async () => {
    const { server, client } = rig(ok);
    await expect(client.fetch(`${BASE}a`, { headers: { 'X-Request-Id': 'short' } })).rejects.toThrow(
      /X-Request-Id header.*8–128 characters/,
    );
    await expect(client.fetch(`${BASE}a`, { headers: { 'Idempotency-Key': `"${ID}` } })).rejects.toThrow(TypeError);
    await expect(client.fetch(`${BASE}a`, { headers: { 'Idempotency-Key': `"${ID}` } })).rejects.toThrow(
      /Idempotency-Key header/,
    );
    expect(server.seen).toHaveLength(0);
  });

  it('reads the ID as the server does (PROTOCOL.md § 2.3): spaces and tabs around it go, a no-break space does not', async () => {
    const { server, client } = rig(ok);
    await (await client.fetch(`${BASE}a`, { headers: { 'X-Request-Id': ` \t"${ID}"\t ` } })).text();
    expect(sentIds(server.seen)).toEqual([ID]);
    await expect(client.fetch(`${BASE}a`, { headers: { 'X-Request-Id': `\u00a0${ID}` } })).rejects.toThrow(
      /X-Request-Id header.*8–128 characters/,
    );
    expect(server.seen).toHaveLength(1);
  });
});

describe('client.fetch: the body, sent again on a retry', () => {
  const retried = (text = 'done') =>
    rig((_request, n) => (n === 1 ? new Response('busy', { status: 503 }) : new Response(text)));

  it('sends a string, bytes and a stream identically on the retry; a stream of UTF-8 goes as text, other bytes as bytes', async () => {
    const bodies: BodyInit[] = [
      'plain',
      new Uint8Array([0xff, 0x00, 0x01]),
      streamOf(new TextEncoder().encode('stre'), new TextEncoder().encode('am €')),
      streamOf(new Uint8Array([0xc3]), new Uint8Array([0x28])),
    ];
    const seen = [];
    for (const body of bodies) {
      const { server, client } = retried();
      const response = await client.fetch(`${BASE}a`, { method: 'POST', body });
      expect(await response.text()).toBe('done');
      expect(server.seen).toHaveLength(2);
      expect(server.seen[1]!.body).toBe(server.seen[0]!.body);
      seen.push([server.seen[0]!.body, server.seen[0]!.contentType]);
    }
    const binary = new TextDecoder().decode(new Uint8Array([0xff, 0x00, 0x01]));
    expect(seen).toEqual([
      ['plain', 'text/plain;charset=UTF-8'],
      [binary, null],
      ['stream €', 'text/plain;charset=UTF-8'],
      [new TextDecoder().decode(new Uint8Array([0xc3, 0x28])), null],
    ]);
  });

  it('stores a stream of text, but refuses a stream of other bytes when there is storage', async () => {
    const storage = memoryStorageAdapter();
    const { client } = rig(ok, { storage });
    const text = await client.fetch(`${BASE}a`, { method: 'POST', body: streamOf(new TextEncoder().encode('hi')) });
    expect((await storage.list())[0]).toMatchObject({ body: 'hi' });
    await text.text();
    await expect(client.fetch(`${BASE}a`, { method: 'POST', body: streamOf(new Uint8Array([0xff])) })).rejects.toMatchObject(
      { name: 'UnreplayableBodyError' },
    );
  });

  it('reads a Request’s own body once and sends it on every attempt; init.body (even null) overrides it', async () => {
    const own = retried();
    await (await own.client.fetch(new Request(`${BASE}a`, { method: 'POST', body: 'from request' }))).text();
    expect(own.server.seen.map((s) => s.body)).toEqual(['from request', 'from request']);
    const over = rig(ok);
    await (await over.client.fetch(new Request(`${BASE}a`, { method: 'POST', body: 'r' }), { body: 'init' })).text();
    await (await over.client.fetch(new Request(`${BASE}a`, { method: 'POST', body: 'r' }), { body: null })).text();
    expect(over.server.seen.map((s) => s.body)).toEqual(['init', '']);
  });

  it('sends the same body, ID and headers again on a reconnect after a cut', async () => {
    const heard: Headers[] = [];
    const { server, client } = rig((request, n) => {
      heard.push(request.headers);
      return new Response(n === 1 ? cutBody('') : 'whole');
    });
    const init = {
      method: 'POST',
      body: streamOf(new TextEncoder().encode('q')),
      headers: { 'x-app': 'a', 'X-Request-Id': ID },
    };
    expect(await (await client.fetch(`${BASE}a`, init)).text()).toBe('whole');
    expect(server.seen.map((s) => [s.method, s.body, s.id])).toEqual([
      ['POST', 'q', ID],
      ['POST', 'q', ID],
    ]);
    expect(heard.map((h) => h.get('x-app'))).toEqual(['a', 'a']);
  });
});
