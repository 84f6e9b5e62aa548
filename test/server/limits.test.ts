import { AttemptFailedError, type IdempotencyEvent, type IdempotencyStore, MemoryStore, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, recordOps } from '../support/server-support.js';
import { sleep } from '../support/sleep.js';

const ID = 'req-0000000001';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('createIdempotencyHandler: an oversize answer whose stream breaks', () => {
  it.each([
    ['', () => new MemoryStore()],
    [' (a store without answer logs)', () => recordOps(new MemoryStore())],
  ])('is FAILED (a resend runs it again and gets an answer), never “answered, not replayable”%s', async (_, makeStore) => {
    const app = chatApp({
      store: makeStore(),
      maxResponseBytes: 8,
      work: ({ context }) => {
        let pulls = 0;
        return new Response(
          new ReadableStream<Uint8Array>({
            async pull(controller) {
              pulls += 1;
              if (pulls === 1) controller.enqueue(bytes('0123456789 over the limit, '));
              else if (context.retry) controller.close();
              else {
                // The break comes after the oversize bytes went out to the caller.
                await sleep(50);
                controller.error(new Error('the model connection dropped'));
              }
            },
          }),
        );
      },
    });
    const first = await app.handle(chatRequest());
    await expect(first.text()).rejects.toThrow();
    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(200);
    expect(await resend.text()).toBe('0123456789 over the limit, ');
    expect(app.calls.map((call) => call.context.retry)).toEqual([false, true]);
    // Now answered whole: too large to keep, so a later replay is the 410.
    expect((await app.handle(chatRequest())).status).toBe(410);
  });
});

describe('MemoryStore: one user cannot evict another’s answers', () => {
  it('evicts the flooding scope’s own oldest answers first, and reports each eviction', async () => {
    const events: IdempotencyEvent[] = [];
    const store = new MemoryStore({ maxEntries: 100, onEvent: (event) => events.push(event) });
    const app = chatApp({ store });
    await app.handle(chatRequest({ user: 'alice', question: 'mine' }));
    for (let n = 0; n < 300; n += 1) {
      await app.handle(chatRequest({ user: 'mallory', id: `flood-${String(n).padStart(8, '0')}` }));
    }
    const replay = await app.handle(chatRequest({ user: 'alice', question: 'mine' }));
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls.filter((call) => call.context.scope.user === 'alice')).toHaveLength(1);
    expect(store.size).toBe(100);
    expect(events).toHaveLength(201);
    expect(events[0]).toEqual({
      type: 'evicted',
      key: 'answer-once:{mallory::flood-00000000}',
      requestId: 'flood-00000000',
      state: 'completed',
    });
    expect(events.every((event) => event.type === 'evicted' && event.key.includes('mallory'))).toBe(true);
  });

  it('still lets a newcomer in when every scope holds one answer: the oldest large-enough scope gives one up', async () => {
    const store = new MemoryStore({ maxEntries: 3 });
    const app = chatApp({ store });
    for (const user of ['a', 'b', 'c', 'd']) await app.handle(chatRequest({ user }));
    expect(store.size).toBe(3);
    expect((await app.handle(chatRequest({ user: 'd' }))).headers.get('X-Idempotent-Replayed')).toBe('true');
  });
});

describe('runOnce: a store that hands back a FAILED record', () => {
  it('throws AttemptFailedError with the stored error as cause, and runs nothing', async () => {
    const failed = {
      state: 'failed',
      fingerprint: '',
      error: '{"name":"Error","message":"boom"}',
      createdAt: 0,
      failedAt: 1,
    } as const;
    const store = {
      ...new MemoryStore(),
      acquire: async () => ({ acquired: false, record: failed }),
    } as unknown as IdempotencyStore;
    let runs = 0;
    const error = await runOnce(store, 'k', async () => (runs += 1)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AttemptFailedError);
    expect(error).toMatchObject({ code: 'intent-failed', cause: { message: 'boom' } });
    expect(runs).toBe(0);
  });
});

describe('createIdempotencyHandler: limits', () => {
  it('answers 413 for a body over maxBodyBytes, stores nothing, and runs the small resend', async () => {
    const app = chatApp({ maxBodyBytes: 64 });
    const big = JSON.stringify({ question: 'x'.repeat(100) });
    const declared = await app.handle(chatRequest({ body: big }));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ code: 'payload-too-large', requestId: ID });
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i += 1) controller.enqueue(new TextEncoder().encode('x'.repeat(20)));
        controller.close();
      },
    });
    const undeclared = await app.handle(
      new Request('http://app.test/api/chat', {
        method: 'POST',
        headers: { Authorization: 'Bearer alice', 'X-Request-Id': ID },
        body: streamed,
        duplex: 'half',
      } as RequestInit),
    );
    expect(undeclared.status).toBe(413);
    expect(app.store.size).toBe(0);
    expect(app.calls).toHaveLength(0);
    expect((await app.handle(chatRequest())).status).toBe(200);
  });

  it('delivers an answer over maxResponseBytes once, and says on replay that it cannot be replayed', async () => {
    const long = 'token '.repeat(1_000);
    const app = chatApp({ maxResponseBytes: 1_024, work: () => new Response(long) });
    const first = await app.handle(chatRequest());
    expect(await first.text()).toBe(long);
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(410);
    expect(replay.headers.get('Content-Type')).toBe('application/problem+json');
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await replay.json()).toMatchObject({ code: 'response-not-replayable', answeredStatus: 200, requestId: ID });
    expect(app.calls).toHaveLength(1);
  });

  it('stores a streamed answer whole and replays the same bytes', async () => {
    const app = chatApp({
      work: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              for (const word of ['Once ', 'upon ', 'a ', 'time.']) {
                controller.enqueue(new TextEncoder().encode(word));
                await sleep(5);
              }
              controller.close();
            },
          }),
          { headers: { 'Content-Type': 'text/plain; charset=utf-8' } },
        ),
    });
    expect(await (await app.handle(chatRequest())).text()).toBe('Once upon a time.');
    const replay = await app.handle(chatRequest());
    expect(await replay.text()).toBe('Once upon a time.');
    expect(replay.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
  });
});
