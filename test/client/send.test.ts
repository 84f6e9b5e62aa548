import { createClient, ResponseError, type SendEvent } from 'answer-once';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createProtocolFake, idOf, ORIGIN, useMsw } from '../support/protocol-fake.js';

const server = await useMsw();

describe('client.send', () => {
  it('sends one new ULID per intent in X-Request-Id and POSTs by default', async () => {
    const seen: { id: string | undefined; method: string }[] = [];
    server.use(
      http.all(`${ORIGIN}/chat`, ({ request }) => {
        seen.push({ id: idOf(request), method: request.method });
        return HttpResponse.json({ ok: true });
      }),
    );
    const client = createClient({ baseUrl: ORIGIN });
    const first = await client.send('chat', { json: { content: 'hi' } });
    const second = await client.send('chat', { json: { content: 'hi' } });
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);
    expect(seen[0]!.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(seen[0]!.id).toBe(first.requestId);
    expect(seen[1]!.id).toBe(second.requestId);
    expect(first.requestId).not.toBe(second.requestId);
  });

  it('uses the requestId it is given instead of minting one', async () => {
    const fake = createProtocolFake();
    server.use(...fake.handlers);
    const client = createClient({ baseUrl: ORIGIN });
    const result = await client.send('chat', { json: { n: 1 }, requestId: 'queued-intent-0001' });
    expect(result.requestId).toBe('queued-intent-0001');
    expect([...fake.records.keys()]).toEqual(['queued-intent-0001']);
  });

  it.each([
    ['a plain object', (h: Record<string, string>) => h],
    ['a Headers', (h: Record<string, string>) => new Headers(h)],
    ['entries', (h: Record<string, string>) => Object.entries(h)],
  ])('sends per-send headers given as %s beside the intent ID, which they cannot replace', async (_, as) => {
    const seen: [string | null, string | null, string | null][] = [];
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => {
        const h = request.headers;
        seen.push([h.get('x-request-id'), h.get('x-trace'), h.get('content-type')]);
        return HttpResponse.json({});
      }),
    );
    const client = createClient({ baseUrl: ORIGIN });
    const json = await client.send('chat', { json: {}, headers: as({ 'x-request-id': 'forged-id-0001', 'X-Trace': 't1' }) });
    const text = await client.send('chat', {
      json: {},
      headers: as({ 'X-Trace': 't2', 'Content-Type': 'application/vnd.chat+json' }),
    });
    expect(seen).toEqual([
      [json.requestId, 't1', 'application/json'],
      [text.requestId, 't2', 'application/vnd.chat+json'],
    ]);
  });

  it('sends the ID as a quoted structured-field string when headerName is Idempotency-Key', async () => {
    const raw: (string | null)[] = [];
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => {
        raw.push(request.headers.get('idempotency-key'));
        raw.push(request.headers.get('x-request-id'));
        return HttpResponse.json({});
      }),
    );
    const client = createClient({ baseUrl: ORIGIN, headerName: 'Idempotency-Key' });
    const { requestId } = await client.send('chat', { json: {} });
    expect(raw).toEqual([`"${requestId}"`, null]);
  });

  it('resolves with the answer parsed as JSON and says how it got there', async () => {
    const fake = createProtocolFake({ work: (body) => ({ reply: `you said ${(body as { content: string }).content}` }) });
    server.use(...fake.handlers);
    const client = createClient({ baseUrl: ORIGIN });
    const result = await client.send<{ reply: string }>('chat', { json: { content: 'hello' } });
    expect(result.data).toEqual({ reply: 'you said hello' });
    expect(result.replayed).toBe(false);
    expect(result.attempts).toBe(1);
    expect(result.polls).toBe(0);
    expect(result.response.status).toBe(200);
    expect(fake.stats.workRuns).toBe(1);
  });

  it('reads a non-JSON answer as text, or leaves the body unread with parse: none', async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => HttpResponse.text('plain answer')));
    const client = createClient({ baseUrl: ORIGIN });
    expect((await client.send('chat', { body: 'q' })).data).toBe('plain answer');
    const raw = await client.send('chat', { body: 'q', parse: 'none' });
    expect(raw.data).toBeUndefined();
    expect(await raw.response.text()).toBe('plain answer');
  });

  it('rejects with a ResponseError, not a bare SyntaxError, when a JSON answer cannot be parsed', async () => {
    server.use(
      http.post(
        `${ORIGIN}/chat`,
        () => new HttpResponse('{"truncated', { headers: { 'content-type': 'application/json' } }),
      ),
    );
    const error = await createClient({ baseUrl: ORIGIN })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error).toMatchObject({ status: 200, retryable: false, attempts: 1 });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('reports replayed when the server replays a stored answer (X-Idempotent-Replayed or Stripe)', async () => {
    const fake = createProtocolFake();
    server.use(...fake.handlers);
    const events: SendEvent[] = [];
    const client = createClient({ baseUrl: ORIGIN, onEvent: (e) => events.push(e) });
    const first = await client.send('chat', { json: { q: 1 }, requestId: 'replay-test-0001' });
    const again = await client.send('chat', { json: { q: 1 }, requestId: 'replay-test-0001' });
    expect([first.replayed, again.replayed]).toEqual([false, true]);
    expect(again.data).toEqual(first.data);
    expect(fake.stats.workRuns).toBe(1);
    expect(events.filter((e) => e.type === 'replayed')).toEqual([
      { type: 'replayed', requestId: 'replay-test-0001', status: 200 },
    ]);

    server.use(http.post(`${ORIGIN}/stripe`, () => HttpResponse.json({}, { headers: { 'Idempotent-Replayed': 'true' } })));
    expect((await client.send('stripe', { json: {} })).replayed).toBe(true);
  });

  it('reads replayed from a custom header name', async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => HttpResponse.json({}, { headers: { 'X-Replayed': 'true' } })));
    const client = createClient({ baseUrl: ORIGIN, replayedHeader: 'X-Replayed' });
    expect((await client.send('chat', { json: {} })).replayed).toBe(true);
  });

  it('keeps the ky instance it is given: its hooks and headers still apply', async () => {
    const auth: (string | null)[] = [];
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => {
        auth.push(request.headers.get('authorization'));
        return HttpResponse.json({});
      }),
    );
    const { default: ky } = await import('ky');
    const base = ky.create({
      hooks: { beforeRequest: [({ request }) => void request.headers.set('Authorization', 'Bearer t')] },
    });
    await createClient({ ky: base, baseUrl: ORIGIN }).send('chat', { json: {} });
    expect(auth).toEqual(['Bearer t']);
  });

  it('keeps client-level searchParams and signal when a send gives none of its own', async () => {
    const seen: string[] = [];
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => {
        seen.push(new URL(request.url).search);
        return HttpResponse.json({});
      }),
    );
    const controller = new AbortController();
    const client = createClient({ baseUrl: ORIGIN, searchParams: { v: '2' }, signal: controller.signal });
    await client.send('chat', { json: {} });
    await client.send('chat', { json: {}, searchParams: { v: '3' } });
    expect(seen).toEqual(['?v=2', '?v=2&v=3']); // ky merges the two, as it does for any instance

    controller.abort(new Error('page left'));
    await expect(client.send('chat', { json: {} })).rejects.toMatchObject({
      name: 'AbortError',
      cause: controller.signal.reason,
    });
    expect(seen).toHaveLength(2);
  });
});
