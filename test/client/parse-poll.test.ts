/**
 * How `result.data` is read from the answer (`parse`: auto, json, text, none; ky's
 * `parseJson`), and what a status poll carries (the send's headers on its own origin, only
 * the ID elsewhere, never the body's headers). The server is a stub `fetch`.
 */

import { type ClientOptions, createClient } from 'answer-once';
import { describe, expect, it } from 'vitest';

const BASE = 'http://127.0.0.1:9/';
const ID = '01JPARSEPOLL0000000000000A';

const answering = (response: () => Response) => (() => Promise.resolve(response())) as typeof fetch;
const body = (text: string, type?: string) => () => new Response(text, type ? { headers: { 'content-type': type } } : {});

async function dataOf(answer: () => Response, parse: ClientOptions['parse'], extra: ClientOptions = {}) {
  const client = createClient({ baseUrl: BASE, fetch: answering(answer), ...extra });
  return (await client.send('chat', { json: {}, ...(parse && { parse }) })).data;
}

describe('reading the answer', () => {
  it.each([
    ['auto', 'a JSON type', body('{"a":1}', 'application/json'), { a: 1 }],
    ['auto', 'a JSON type spelled with spaces', body('{"a":1}', 'application/json ; charset=utf-8'), { a: 1 }],
    ['auto', 'a +json type', body('{"a":1}', 'application/vnd.api+json'), { a: 1 }],
    ['auto', 'a text type', body('{"a":1}', 'text/plain'), '{"a":1}'],
    ['auto', 'an empty text body', body('', 'text/plain'), undefined],
    ['auto', 'an empty JSON body', body('', 'application/json'), undefined],
    ['json', 'a text type', body('{"a":1}', 'text/plain'), { a: 1 }],
    ['json', 'an empty body', body('', 'text/plain'), undefined],
    ['text', 'a JSON type', body('{"a":1}', 'application/json'), '{"a":1}'],
    ['text', 'an empty body', body('', 'application/json'), ''],
    ['none', 'a JSON type', body('{"a":1}', 'application/json'), undefined],
  ] as const)('parse %s reads %s as %j', async (parse, _, answer, expected) => {
    expect(await dataOf(answer, parse)).toEqual(expected);
  });

  it("hands JSON text to ky's parseJson with the request and response it came with", async () => {
    const seen: { text: string; url: string; status: number }[] = [];
    const data = await dataOf(body('{"a":1}', 'application/json'), undefined, {
      parseJson: (text, { request, response }) => (seen.push({ text, url: request.url, status: response.status }), 'parsed'),
    });
    expect(data).toBe('parsed');
    expect(seen).toEqual([{ text: '{"a":1}', url: `${BASE}chat`, status: 200 }]);
  });
});

describe('a status poll', () => {
  /** A server that accepts the send (202, with `location` when given) and answers the first poll. */
  function acceptingServer(location?: string) {
    const requests: Request[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      requests.push(request);
      if (requests.length === 1)
        return new Response(null, { status: 202, headers: { ...(location && { location }), 'retry-after': '0' } });
      return Response.json({ answer: 'done' });
    };
    return { requests, fetch: fetch as typeof globalThis.fetch };
  }

  const send = (server: ReturnType<typeof acceptingServer>, extra: ClientOptions = {}) =>
    createClient({ baseUrl: BASE, fetch: server.fetch, pollWait: 0, minPollInterval: 1, ...extra }).send('chat', {
      json: { q: 'hi' },
      requestId: ID,
      headers: { authorization: 'Bearer alice', 'x-app': '1' },
    });

  it("carries the send's own headers and the ID on the send's origin, but none of its body's headers", async () => {
    const server = acceptingServer(`/api/status/${ID}`);
    await send(server);
    const poll = server.requests[1]!;
    expect(poll.method).toBe('GET');
    expect(poll.url).toBe(`${BASE}api/status/${ID}`);
    expect(poll.headers.get('authorization')).toBe('Bearer alice');
    expect(poll.headers.get('x-app')).toBe('1');
    expect(poll.headers.get('x-request-id')).toBe(ID);
    expect(poll.headers.get('content-type')).toBeNull();
  });

  it('carries only the ID to a status URL the app put on another origin', async () => {
    const server = acceptingServer();
    await send(server, { statusUrl: (id) => `http://127.0.0.1:7/status/${id}` });
    const poll = server.requests[1]!;
    expect(poll.url).toBe(`http://127.0.0.1:7/status/${ID}`);
    expect([...poll.headers]).toEqual([
      ['idempotency-key', `"${ID}"`],
      ['x-request-id', ID],
    ]);
  });
});
