/**
 * What `send()` refuses and what its options do, over a stub `fetch`: each bad option is
 * a TypeError naming it, what it must be and what came, before any request; the method
 * is POST by default and sent in capitals; a `requestId` of 8–128 characters is the ID
 * sent; `json` and a `body` together are refused, a `null` body is none; calls with the
 * same `intentKey`, or the same `requestId`, while one is in flight share one request,
 * and other calls (an intent key equal to another call's ID too) do not.
 */

import { createClient, type SendOptions } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';

const BASE = 'http://127.0.0.1:9/';

/** A client over a stub fetch that records each request (and its body) and answers `{ n }` (the n-th) a tick later. */
function setup() {
  const requests: Request[] = [];
  const bodies: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    requests.push(request);
    bodies.push(await request.clone().text());
    const n = requests.length;
    await sleep(5);
    return Response.json({ n });
  };
  return { requests, bodies, client: createClient({ baseUrl: BASE, fetch: fetch as typeof globalThis.fetch }) };
}

const ID_RULE = '8–128 characters of [A-Za-z0-9_-]';

describe('send: each bad option named, before any request', () => {
  it.each<[string, unknown, string, string, string]>([
    ['options not an object', 5, 'options', 'an options object', '5'],
    ['options null', null, 'options', 'an options object', 'null'],
    ['an empty method', { method: '' }, 'method', 'an HTTP method', '""'],
    ['a method with a space', { method: 'PO ST' }, 'method', 'an HTTP method', '"PO ST"'],
    ['a method after a space', { method: ' POST' }, 'method', 'an HTTP method', '" POST"'],
    ['a method before a space', { method: 'POST ' }, 'method', 'an HTTP method', '"POST "'],
    ['a method with a digit', { method: 'POST1' }, 'method', 'an HTTP method', '"POST1"'],
    ['a method that is a number', { method: 5 }, 'method', 'an HTTP method', '5'],
    ['a requestId of 7 characters', { requestId: 'abcdefg' }, 'requestId', ID_RULE, '"abcdefg"'],
    ['a requestId of 129 characters', { requestId: 'a'.repeat(129) }, 'requestId', ID_RULE, `"${'a'.repeat(40)}…"`],
    ['a requestId with spaces', { requestId: 'has spaces in it' }, 'requestId', ID_RULE, '"has spaces in it"'],
    ['a requestId that is a number', { requestId: 12345678 }, 'requestId', ID_RULE, '12345678'],
    ['an empty intentKey', { intentKey: '' }, 'intentKey', 'a non-empty string', '""'],
    ['an intentKey that is a number', { intentKey: 5 }, 'intentKey', 'a non-empty string', '5'],
    ['a signal that is an object', { signal: {} }, 'signal', 'an AbortSignal', 'an object'],
    ['onEvent a number', { onEvent: 1 }, 'onEvent', 'a function', '1'],
    ['parse another mode', { parse: 'xml' }, 'parse', 'one of auto, json, text, none', '"xml"'],
    ['json with a body', { json: {}, body: 'x' }, 'json', 'omitted when `body` is given', 'an object'],
  ])('%s', async (_, options, option, expected, got) => {
    const { requests, client } = setup();
    const error = await client.send('chat', options as SendOptions).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(`answer-once: \`${option}\` must be ${expected}; got ${got}.`);
    expect(requests).toHaveLength(0);
  });
});

describe('send: what its options send', () => {
  it('sends POST by default, and any method of letters in capitals', async () => {
    const { requests, client } = setup();
    await client.send('chat');
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    for (const method of ['get', 'Patch', 'purge', 'DELETE', letters]) await client.send('chat', { method });
    expect(requests.map((r) => r.method)).toEqual(['POST', 'GET', 'PATCH', 'PURGE', 'DELETE', letters.toUpperCase()]);
  });

  it.each(['abcdefgh', 'a'.repeat(128), 'A-z_0-9-ok'])('sends the requestId %s as the ID', async (requestId) => {
    const { requests, client } = setup();
    expect(await client.send('chat', { requestId })).toMatchObject({ requestId });
    expect(requests[0]!.headers.get('x-request-id')).toBe(requestId);
  });

  it('sends json as JSON, even with a null body, and a body alone as it is', async () => {
    const { requests, bodies, client } = setup();
    await client.send('chat', { json: { a: 1 }, body: null });
    await client.send('chat', { body: 'plain text' });
    expect(bodies).toEqual(['{"a":1}', 'plain text']);
    expect(requests[0]!.headers.get('content-type')).toBe('application/json');
  });

  it('accepts a signal, null for none, and a parse mode of its own', async () => {
    const { requests, client } = setup();
    await client.send('chat', { signal: new AbortController().signal });
    await client.send('chat', { signal: null as never });
    expect((await client.send('chat', { parse: 'text' })).data).toBe('{"n":3}');
    expect(requests).toHaveLength(3);
  });
});

describe('send: calls in flight together', () => {
  async function together(a: SendOptions, b: SendOptions) {
    const { requests, client } = setup();
    const [first, second] = await Promise.all([client.send('chat', a), client.send('chat', b)]);
    return { requests: requests.length, same: first.requestId === second.requestId, data: [first.data, second.data] };
  }

  it('share one request when they have the same intentKey, whatever their requestIds', async () => {
    expect(await together({ intentKey: 'draft-1' }, { intentKey: 'draft-1' })).toMatchObject({ requests: 1, same: true });
    const ids = { intentKey: 'draft-1', requestId: 'intent-0001' };
    expect(await together(ids, { ...ids, requestId: 'intent-0002' })).toMatchObject({
      requests: 1,
      same: true,
      data: [{ n: 1 }, { n: 1 }],
    });
  });

  it('share one request when they have the same requestId', async () => {
    expect(await together({ requestId: 'intent-0001' }, { requestId: 'intent-0001' })).toMatchObject({
      requests: 1,
      same: true,
    });
  });

  it.each<[string, SendOptions, SendOptions]>([
    ['no key or ID', {}, {}],
    ['other intentKeys', { intentKey: 'draft-1' }, { intentKey: 'draft-2' }],
    ['other requestIds', { requestId: 'intent-0001' }, { requestId: 'intent-0002' }],
    ["an intentKey equal to the other's requestId", { intentKey: 'intent-0001' }, { requestId: 'intent-0001' }],
    ['a key against none', { intentKey: 'draft-1' }, {}],
    ['an ID against none', { requestId: 'intent-0001' }, {}],
  ])('send two requests with %s', async (_, a, b) => {
    expect(await together(a, b)).toMatchObject({ requests: 2, same: false });
  });
});
