import { createClient, DeadlineExceededError, ProtocolError, type SendEvent } from 'answer-once';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accepted, journal, offsets } from '../support/poll-journal.js';
import { advance, createProtocolFake, ORIGIN, problem, useMsw } from '../support/protocol-fake.js';
import { sleep } from '../support/sleep.js';

const server = await useMsw();

afterEach(() => {
  vi.useRealTimers();
});

describe('client polling after 202', () => {
  it('polls Location, resolved against the request URL, with the same ID and Prefer: wait, until 200', async () => {
    const { seen, note } = journal();
    let polls = 0;
    server.use(
      http.post(`${ORIGIN}/api/chat`, ({ request }) => (note(request), accepted({ Location: 'status/s1' }))),
      http.get(`${ORIGIN}/api/status/s1`, ({ request }) => {
        note(request);
        polls += 1;
        return polls < 3 ? accepted() : HttpResponse.json({ answer: 'done' });
      }),
    );
    const events: SendEvent[] = [];
    const client = createClient({ baseUrl: `${ORIGIN}/api/`, pollWait: 7, onEvent: (e) => events.push(e) });
    const result = await client.send('chat', { json: { q: 1 } });
    expect(result).toMatchObject({ data: { answer: 'done' }, attempts: 1, polls: 3, replayed: false });
    expect(seen.map((s) => [s.method, s.path, s.id, s.prefer])).toEqual([
      ['POST', '/api/chat', result.requestId, null],
      ['GET', '/api/status/s1', result.requestId, 'wait=7'],
      ['GET', '/api/status/s1', result.requestId, 'wait=7'],
      ['GET', '/api/status/s1', result.requestId, 'wait=7'],
    ]);
    expect(events.map((e) => e.type)).toEqual(['attempt', 'accepted', 'poll', 'poll', 'poll', 'settled']);
    expect(events[1]).toEqual({
      type: 'accepted',
      requestId: result.requestId,
      statusUrl: `${ORIGIN}/api/status/s1`,
      delay: 0,
    });
  });

  it('polls statusUrl(requestId) when the 202 has no Location', async () => {
    const { seen, note } = journal();
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => (note(request), accepted())),
      http.get(`${ORIGIN}/intents/:id`, ({ request }) => (note(request), HttpResponse.json({ ok: 1 }))),
    );
    const client = createClient({ baseUrl: ORIGIN, statusUrl: (id) => `/intents/${id}` });
    const result = await client.send('chat', { json: {} });
    expect(seen.map((s) => s.path)).toEqual(['/chat', `/intents/${result.requestId}`]);
  });

  it('re-sends the original request (same ID) to poll when there is no status URL at all', async () => {
    const fake = createProtocolFake();
    const { seen, note } = journal();
    let calls = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => {
        note(request);
        calls += 1;
        return calls < 3 ? accepted() : HttpResponse.json({ ok: true });
      }),
    );
    const result = await createClient({ baseUrl: ORIGIN, pollInterval: 1 }).send('chat', { json: {} });
    expect(result).toMatchObject({ attempts: 1, polls: 2 });
    expect(seen.map((s) => [s.method, s.id])).toEqual([
      ['POST', result.requestId],
      ['POST', result.requestId],
      ['POST', result.requestId],
    ]);
    expect(fake.stats.workRuns).toBe(0);
  });

  it('sends the IETF Idempotency-Key, quoted, on every poll too', async () => {
    const keys: (string | null)[] = [];
    server.use(
      http.post(
        `${ORIGIN}/chat`,
        ({ request }) => (keys.push(request.headers.get('idempotency-key')), accepted({ Location: '/s' })),
      ),
      http.get(`${ORIGIN}/s`, ({ request }) => (keys.push(request.headers.get('idempotency-key')), HttpResponse.json({}))),
    );
    const { requestId } = await createClient({ baseUrl: ORIGIN, headerName: 'Idempotency-Key' }).send('chat', { json: {} });
    expect(keys).toEqual([`"${requestId}"`, `"${requestId}"`]);
  });

  it('treats 409 "request in progress" with a Location as a 202 and polls it', async () => {
    const { seen, note } = journal();
    server.use(
      http.post(
        `${ORIGIN}/chat`,
        ({ request }) => (note(request), problem(409, 'request-in-progress', { headers: { Location: '/s' } })),
      ),
      http.get(`${ORIGIN}/s`, ({ request }) => (note(request), HttpResponse.json({ ok: true }))),
    );
    const result = await createClient({ baseUrl: ORIGIN }).send('chat', { json: {} });
    expect(result).toMatchObject({ attempts: 1, polls: 1, data: { ok: true } });
    expect(seen.map((s) => [s.method, s.path, s.id])).toEqual([
      ['POST', '/chat', result.requestId],
      ['GET', '/s', result.requestId],
    ]);
  });

  it('without long-polling (pollWait: 0), waits the Retry-After of a 202 before polling', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { seen, note } = journal();
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => (note(request), accepted({ Location: '/s', 'Retry-After': '5' }))),
      http.get(`${ORIGIN}/s`, ({ request }) => (note(request), HttpResponse.json({}))),
    );
    const sending = createClient({ baseUrl: ORIGIN, pollWait: 0 }).send('chat', { json: {} });
    await advance(4_900);
    expect(seen).toHaveLength(1);
    await advance(200);
    await expect(sending).resolves.toMatchObject({ polls: 1 });
    expect(seen[1]!.prefer).toBeNull();
  });

  it('long-polls at once after a 202, and again at once after each poll the server held', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const sentAt: number[] = [];
    let polls = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, () => (sentAt.push(Date.now()), accepted({ Location: '/s', 'Retry-After': '5' }))),
      http.get(`${ORIGIN}/s`, async ({ request }) => {
        sentAt.push(Date.now());
        polls += 1;
        if (polls === 3) return HttpResponse.json({ answer: 'done' });
        // A server that applies `Prefer: wait=2`: it holds the poll 2 s, then says so.
        expect(request.headers.get('prefer')).toBe('wait=2');
        await sleep(2_000);
        return accepted({ 'Retry-After': '5', 'Preference-Applied': 'wait=2' });
      }),
    );
    const events: SendEvent[] = [];
    const sending = createClient({ baseUrl: ORIGIN, pollWait: 2 }).send('chat', {
      json: {},
      onEvent: (e) => events.push(e),
    });
    await advance(50);
    // The first poll left with the 202, not 5 s (its Retry-After) later.
    expect(sentAt).toHaveLength(2);
    await advance(4_100);
    await expect(sending).resolves.toMatchObject({ data: { answer: 'done' }, polls: 3 });
    expect(offsets(sentAt)).toEqual([0, 0, 2_000, 4_000]);
    expect(events.find((e) => e.type === 'accepted')).toMatchObject({ delay: 0 });
  });

  it.each([
    ['does not apply the preference', {}],
    ['applies it but answers sooner than it said', { 'Preference-Applied': 'wait=10' }],
  ])('polls a server that %s at its Retry-After, not in a tight loop', async (_, extra: Record<string, string>) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const sentAt: number[] = [];
    let polls = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, () => (sentAt.push(Date.now()), accepted({ Location: '/s', 'Retry-After': '3' }))),
      http.get(`${ORIGIN}/s`, () => {
        sentAt.push(Date.now());
        polls += 1;
        return polls < 3 ? accepted({ 'Retry-After': '3', ...extra }) : HttpResponse.json({ answer: 'done' });
      }),
    );
    const sending = createClient({ baseUrl: ORIGIN }).send('chat', { json: {} });
    await advance(6_100);
    await expect(sending).resolves.toMatchObject({ polls: 3 });
    // One poll at once (it asked to hold), then the server's pace: every 3 s.
    expect(offsets(sentAt)).toEqual([0, 0, 3_000, 6_000]);
  });

  it.each([
    ['a status route that answers 202 + Retry-After: 0 at once', { Location: '/s' }],
    ['no status route (every poll resends the intent)', {}],
  ])('paces the polls of %s: at most 5 requests in 2 s and 64 in a minute', async (_, location: Record<string, string>) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const sentAt: number[] = [];
    const start = Date.now();
    const hostile = () => (sentAt.push(Date.now() - start), accepted({ 'Retry-After': '0', ...location }));
    server.use(http.post(`${ORIGIN}/chat`, hostile), http.get(`${ORIGIN}/s`, hostile));
    const sending = createClient({ baseUrl: ORIGIN, totalTimeout: 60_000 })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    await advance(60_100);
    expect(await sending).toBeInstanceOf(DeadlineExceededError);
    expect(sentAt.filter((t) => t < 2_000).length).toBeLessThanOrEqual(5);
    expect(sentAt.length).toBeLessThanOrEqual(64);
    // Never two requests closer than the 250 ms floor, once the first 202 came back.
    const gaps = sentAt.slice(2).map((t, i) => t - sentAt[i + 1]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(250);
  });

  it('starts the pacing floor at minPollInterval and doubles it per unheld 202', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const sentAt: number[] = [];
    let polls = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, () => (sentAt.push(Date.now()), accepted({ Location: '/s' }))),
      http.get(`${ORIGIN}/s`, () => {
        sentAt.push(Date.now());
        polls += 1;
        return polls < 4 ? accepted({ 'Retry-After': '0' }) : HttpResponse.json({ answer: 'done' });
      }),
    );
    const sending = createClient({ baseUrl: ORIGIN, minPollInterval: 100 }).send('chat', { json: {} });
    await advance(1_000);
    await expect(sending).resolves.toMatchObject({ polls: 4 });
    expect(offsets(sentAt)).toEqual([0, 0, 100, 300, 700]);
  });

  it.each([202, 409])(
    'refuses a %i Location on another origin, naming it, and sends it nothing: no headers, no hooks, no poll',
    async (status) => {
      const seen: Request[] = [];
      const other = 'http://127.0.0.2:4010/s';
      server.use(
        http.post(
          `${ORIGIN}/chat`,
          () => new HttpResponse(null, { status, headers: { Location: other, 'Retry-After': '0' } }),
        ),
        http.all('http://127.0.0.2:4010/*', ({ request }) => (seen.push(request), HttpResponse.json({}))),
      );
      const hooked: string[] = [];
      const client = createClient({
        baseUrl: ORIGIN,
        headers: { Authorization: 'Bearer secret' },
        hooks: {
          beforeRequest: [
            ({ request }) => (hooked.push(`request ${request.url}`), request.headers.set('X-Token', 'from-hook')),
          ],
          beforeRetry: [({ request }) => (hooked.push(`retry ${request.url}`), request.headers.set('X-Token', 'refreshed'))],
        },
      });
      const error = await client.send('chat', { json: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toContain(other);
      expect((error as ProtocolError).message).toContain('`statusUrl`');
      expect(error).toMatchObject({ retryable: false, attempts: 1, polls: 0 });
      expect(seen).toEqual([]);
      expect(hooked).toEqual([`request ${ORIGIN}/chat`]);
    },
  );

  it('polls a statusUrl on another origin when the app sets one, with only the ID and none of its headers', async () => {
    const { seen, note } = journal();
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => (note(request), accepted())),
      http.get('http://127.0.0.2:4010/status/:id', ({ request }) => (note(request), HttpResponse.json({}))),
    );
    const client = createClient({
      baseUrl: ORIGIN,
      headers: { Authorization: 'Bearer secret' },
      statusUrl: (id) => `http://127.0.0.2:4010/status/${id}`,
    });
    const { requestId } = await client.send('chat', { json: {}, headers: { 'X-Thread': 't1' } });
    expect(seen.map((s) => [s.path, s.auth, s.id])).toEqual([
      ['/chat', 'Bearer secret', requestId],
      [`/status/${requestId}`, null, requestId],
    ]);
  });

  it('marks an answer the status route replays from storage as replayed', async () => {
    let release!: () => void;
    const fake = createProtocolFake({ work: () => new Promise((r) => (release = () => r({ text: 'slow answer' }))) });
    server.use(...fake.handlers);
    const first = createClient({ baseUrl: ORIGIN }).send('chat', { json: { q: 1 }, requestId: 'double-send-0001' });
    await vi.waitFor(() => expect(fake.records.get('double-send-0001')?.state).toBe('processing'));
    const events: SendEvent['type'][] = [];
    // Another tab (another client) sends the same intent while the first attempt still runs.
    const again = createClient({ baseUrl: ORIGIN, pollInterval: 1 }).send('chat', {
      json: { q: 1 },
      requestId: 'double-send-0001',
      onEvent: (e) => events.push(e.type),
    });
    await vi.waitFor(() => expect(events).toContain('poll'));
    release();
    const [a, b] = await Promise.all([first, again]);
    expect(a).toMatchObject({ data: { text: 'slow answer' }, replayed: false, polls: 0 });
    expect(b).toMatchObject({ data: { text: 'slow answer' }, replayed: true, attempts: 1 });
    expect(b.polls).toBeGreaterThan(0);
    expect(events).toEqual(expect.arrayContaining(['accepted', 'replayed']));
    expect(fake.stats.workRuns).toBe(1);
  });
});
