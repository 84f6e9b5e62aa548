/**
 * The fresh answer on a log-keeping store (PROTOCOL.md § 14.2, § 14.3): the attempt that
 * runs the work gets its status and headers, flagged only with what is true of it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chatApp, chatRequest } from '../../support/server-support.js';
import { parseEvents, range, sseAnswer, tokens } from '../../support/stream-support.js';

describe('createIdempotencyHandler: the fresh answer from a log-keeping store', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('flags neither a JSON nor a streamed fresh answer restarted; only one for a position of another generation is', async () => {
    const json = chatApp();
    const answered = await json.handle(chatRequest());
    expect(answered.headers.get('X-Idempotent-Generation')).toMatch(/^\d+$/);
    expect(answered.headers.get('X-Idempotent-Restarted')).toBeNull();

    const streamed = chatApp({ work: () => sseAnswer(3, { delayMs: 1 }) });
    const fresh = await streamed.handle(chatRequest({ id: 'req-0000000002' }));
    expect(fresh.headers.get('X-Idempotent-Restarted')).toBeNull();
    expect(tokens(parseEvents(await fresh.text()))).toEqual(range(3));

    // Sent with a position of generation 1, which never ran: it starts over, flagged so.
    const restarted = await streamed.handle(chatRequest({ id: 'req-0000000003', headers: { 'Last-Event-ID': '1.40' } }));
    expect(restarted.headers.get('X-Idempotent-Restarted')).toBe('true');
    const events = parseEvents(await restarted.text());
    expect(events[0]).toMatchObject({ event: 'answer-once.restart' });
    expect(tokens(events)).toEqual(range(3));
  });

  it('answers a 204 without a body, and replays it', async () => {
    const app = chatApp({ work: () => new Response(null, { status: 204 }) });
    const fresh = await app.handle(chatRequest());
    expect(fresh.status).toBe(204);
    expect(fresh.body).toBeNull();
    expect(fresh.headers.get('X-Idempotent-Generation')).toMatch(/^\d+$/);
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(204);
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });

  it('does not restart for a position of the very generation this claim gets (only another one is a restart)', async () => {
    const T0 = 1_000_000; // the memory store's first generation of a key is its clock's now
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const app = chatApp({ work: () => sseAnswer(2) });
    const fresh = await app.handle(chatRequest({ headers: { 'Last-Event-ID': `${T0}.0` } }));
    expect(fresh.headers.get('X-Idempotent-Generation')).toBe(String(T0));
    expect(fresh.headers.get('X-Idempotent-Restarted')).toBeNull();
    const events = parseEvents(await fresh.text());
    expect(events.map(({ event }) => event).filter((name) => name?.startsWith('answer-once.'))).toEqual([]);
    expect(tokens(events)).toEqual(range(2));
  });
});
