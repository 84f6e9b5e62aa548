import { AnswerOnceError, createClient, DeadlineExceededError, IntentFailedError } from 'answer-once';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accepted, journal } from '../support/poll-journal.js';
import { advance, createProtocolFake, ORIGIN, problem, useMsw } from '../support/protocol-fake.js';

const server = await useMsw();

afterEach(() => {
  vi.useRealTimers();
});

describe('client after the server reports the intent failed', () => {
  it('resends the original request with the same ID, and the work runs again', async () => {
    let runs = 0;
    const fake = createProtocolFake({
      work: () => {
        runs += 1;
        if (runs === 1) throw new Error('model overloaded');
        return { answer: 'second time lucky' };
      },
    });
    server.use(...fake.handlers);
    const reasons: string[] = [];
    const result = await createClient({ baseUrl: ORIGIN, retry: { delay: 0 } }).send('chat', {
      json: { q: 1 },
      onEvent: (e) => e.type === 'retry' && reasons.push(e.reason),
    });
    expect(result).toMatchObject({ data: { answer: 'second time lucky' }, attempts: 2 });
    expect(reasons).toEqual(['intent-failed']);
    expect(fake.stats.workRuns).toBe(2);
    expect([...fake.records.keys()]).toEqual([result.requestId]);
  });

  it('resends the original request when a status poll reports the intent failed', async () => {
    const { seen, note } = journal();
    let posts = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, async ({ request }) => {
        note(request);
        posts += 1;
        expect(await request.json()).toEqual({ q: 'original' });
        return posts === 1 ? accepted({ Location: '/s' }) : HttpResponse.json({ ok: true });
      }),
      http.get(`${ORIGIN}/s`, ({ request }) => (note(request), problem(500, 'intent-failed'))),
    );
    const result = await createClient({ baseUrl: ORIGIN, retry: { delay: 0 } }).send('chat', { json: { q: 'original' } });
    expect(seen.map((s) => [s.method, s.id])).toEqual([
      ['POST', result.requestId],
      ['GET', result.requestId],
      ['POST', result.requestId],
    ]);
    expect(result).toMatchObject({ attempts: 2, polls: 1 });
  });

  it('counts resends against the retry limit, then rejects with a retryable IntentFailedError', async () => {
    const fake = createProtocolFake({
      work: () => {
        throw new Error('always fails');
      },
    });
    server.use(...fake.handlers);
    const error = (await createClient({ baseUrl: ORIGIN, retry: { limit: 2, delay: 0 } })
      .send('chat', { json: {} })
      .catch((e: unknown) => e)) as IntentFailedError;
    expect(error).toBeInstanceOf(IntentFailedError);
    expect(error).toBeInstanceOf(AnswerOnceError);
    expect(error).toMatchObject({ retryable: true, attempts: 3, status: 500 });
    expect(error.problem?.code).toBe('intent-failed');
    expect(error.cause).toBeInstanceOf(Error);
    expect(fake.stats.workRuns).toBe(3);
  });
});

describe('client deadline and abort while waiting', () => {
  it('stops polling at totalTimeout with a DeadlineExceededError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const { seen, note } = journal();
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => (note(request), accepted({ Location: '/s', 'Retry-After': '2' }))),
      http.get(`${ORIGIN}/s`, ({ request }) => (note(request), accepted({ 'Retry-After': '2' }))),
    );
    const sending = createClient({ baseUrl: ORIGIN, totalTimeout: 9_000 })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    await advance(9_100);
    const error = (await sending) as DeadlineExceededError;
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.polls).toBe(5); // polls at 0, 2, 4, 6, 8 s
    expect(seen).toHaveLength(6);
  });

  it('stops polling at once when the signal aborts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { seen, note } = journal();
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => (note(request), accepted({ Location: '/s', 'Retry-After': '1' }))),
      http.get(`${ORIGIN}/s`, ({ request }) => (note(request), accepted({ 'Retry-After': '1' }))),
    );
    const controller = new AbortController();
    const sending = createClient({ baseUrl: ORIGIN })
      .send('chat', { json: {}, signal: controller.signal })
      .catch((e: unknown) => e);
    await advance(2_500);
    controller.abort();
    expect(((await sending) as Error).name).toBe('AbortError');
    const count = seen.length;
    await advance(30_000);
    expect(seen).toHaveLength(count);
  });
});
