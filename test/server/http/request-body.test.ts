import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest } from '../../support/server-support.js';

const ID = 'req-0000000001';
const LIMIT = 64;

/** A JSON chat body of exactly `length` bytes. */
function bodyOf(length: number): string {
  const body = JSON.stringify({ question: 'x'.repeat(length - '{"question":""}'.length) });
  expect(body).toHaveLength(length);
  return body;
}

/** A request whose body arrives as a stream, with no `Content-Length` to go by. */
function streamedRequest(body: string): Request {
  const bytes = new TextEncoder().encode(body);
  return new Request('http://app.test/api/chat', {
    method: 'POST',
    headers: { Authorization: 'Bearer alice', 'X-Request-Id': ID, 'Content-Type': 'application/json' },
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        // In two pieces: the limit is checked on the running total.
        controller.enqueue(bytes.subarray(0, 10));
        controller.enqueue(bytes.subarray(10));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
}

describe('createIdempotencyHandler: maxBodyBytes', () => {
  it('refuses a declared Content-Length over the limit with 413 before reading a byte of the body', async () => {
    const app = chatApp({ maxBodyBytes: LIMIT });
    const body = bodyOf(LIMIT + 1);
    const request = chatRequest({ body, headers: { 'Content-Length': String(body.length) } });
    const response = await app.handle(request);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload-too-large', requestId: ID });
    expect(request.bodyUsed).toBe(false); // the upload was not taken in only to be refused
    expect(app.calls).toHaveLength(0);
  });

  it('runs a body of exactly maxBodyBytes, declared or streamed', async () => {
    const body = bodyOf(LIMIT);
    const declared = chatApp({ maxBodyBytes: LIMIT });
    const response = await declared.handle(chatRequest({ body, headers: { 'Content-Length': String(LIMIT) } }));
    expect(response.status).toBe(200);
    expect(declared.calls).toHaveLength(1);

    const streamed = chatApp({ maxBodyBytes: LIMIT });
    expect((await streamed.handle(streamedRequest(body))).status).toBe(200);
    expect(streamed.calls.map((call) => call.question)).toEqual([JSON.parse(body).question]);
  });

  it('refuses a streamed body one byte over the limit with 413, running nothing', async () => {
    const app = chatApp({ maxBodyBytes: LIMIT });
    const response = await app.handle(streamedRequest(bodyOf(LIMIT + 1)));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload-too-large', requestId: ID });
    expect(app.calls).toHaveLength(0);
  });
});

/** A request whose body stream breaks after its first `sent` bytes, as a client's that hangs up mid-upload does. */
function brokenRequest(body: string, sent: number): Request {
  const bytes = new TextEncoder().encode(body);
  let arrived = false;
  return new Request('http://app.test/api/chat', {
    method: 'POST',
    headers: {
      Authorization: 'Bearer alice',
      'X-Request-Id': ID,
      'Content-Type': 'application/json',
      'Content-Length': String(bytes.byteLength),
    },
    body: new ReadableStream<Uint8Array>({
      pull(controller) {
        // The first read gets the bytes that came; the next finds the connection gone.
        if (arrived) controller.error(new TypeError('terminated: other side closed'));
        else controller.enqueue(bytes.subarray(0, sent));
        arrived = true;
      },
    }),
    duplex: 'half',
  } as RequestInit);
}

describe('createIdempotencyHandler: a request body that breaks', () => {
  it('answers 400 request-body-incomplete, saying how far the body got, and runs nothing', async () => {
    const app = chatApp();
    const response = await app.handle(brokenRequest(bodyOf(LIMIT), 10));
    expect(response.status).toBe(400);
    expect(response.headers.get('Content-Type')).toBe('application/problem+json');
    expect(response.headers.get('X-Request-Id')).toBe(ID);
    expect(await response.json()).toEqual({
      type: 'https://answer-once.dev/problems/request-body-incomplete',
      title: 'answer-once: the request body did not arrive whole; nothing was run.',
      status: 400,
      code: 'request-body-incomplete',
      detail: `answer-once: the request body broke after 10 bytes of the ${LIMIT} its Content-Length declared.`,
      requestId: ID,
    });
    expect(app.calls).toHaveLength(0);
  });

  it('keeps nothing of the broken body: the same request sent again whole runs once and is answered', async () => {
    const app = chatApp();
    const body = bodyOf(LIMIT);
    expect((await app.handle(brokenRequest(body, 10))).status).toBe(400);
    const resent = await app.handle(chatRequest({ body }));
    expect(resent.status).toBe(200); // not 422: the broken bytes were never fingerprinted
    expect(resent.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(app.calls.map((call) => call.question)).toEqual([JSON.parse(body).question]);
  });
});
