/**
 * SendController (what `useSend` subscribes to, and what a Vue or Svelte UI uses) against
 * the reference server inside msw: model calls, answers and IDs as a user sees them.
 */

import { createClient, memoryStorageAdapter, SendController, type SendState, type StorageAdapter } from 'answer-once';
import { createIdempotentMock } from 'answer-once/msw';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { idOf, ORIGIN, useMsw } from '../../support/protocol-fake.js';

const server = await useMsw();

/** The reference server on `${ORIGIN}/chat`: its model answers with the question and the query it saw. */
function chatServer() {
  const mock = createIdempotentMock({
    url: `${ORIGIN}/chat`,
    handler: async (request) => {
      const { content } = (await request.json()) as { content: string };
      return Response.json({ answer: `to ${content}`, thread: new URL(request.url).searchParams.get('thread') });
    },
  });
  server.use(...mock.handlers);
  return mock;
}

/** The same storage, but the page "reloads" before the intent settles: nothing is removed. */
const reloading = (storage: StorageAdapter): StorageAdapter => ({ ...storage, remove: () => undefined });

describe('SendController.resume()', () => {
  it('finishes a pending intent sent with searchParams after a reload: the stored answer, replayed, one model call', async () => {
    const mock = chatServer();
    const storage = memoryStorageAdapter();
    mock.inject({ type: 'lose-response' });
    const firstPage = createClient({ baseUrl: ORIGIN, storage: reloading(storage), retry: 0 });
    const lost = await new SendController(firstPage, 'chat').send({
      json: { content: 'hi' },
      searchParams: { thread: 't1' },
    });
    expect(lost.status).toBe('failed');
    expect(mock.stats.runs).toBe(1);

    const reloaded = new SendController(createClient({ baseUrl: ORIGIN, storage }), 'chat');
    const state = await reloaded.resume();
    expect(state).toMatchObject({
      status: 'answered',
      requestId: lost.requestId,
      data: { answer: 'to hi', thread: 't1' },
      replayed: true,
      // The stored body, shown as what the user asked.
      json: { content: 'hi' },
    });
    expect(mock.stats.runs).toBe(1);
    expect(await storage.list()).toEqual([]);
  });

  it('leaves the pending intent alone when the user sent a new one while storage was being read', async () => {
    const mock = chatServer();
    const storage = memoryStorageAdapter();
    mock.inject({ type: 'lose-response' });
    const firstPage = createClient({ baseUrl: ORIGIN, storage: reloading(storage), retry: 0 });
    await new SendController(firstPage, 'chat').send({ json: { content: 'old' } });
    const [pending] = await storage.list();

    const ids: (string | undefined)[] = [];
    server.events.on('request:start', ({ request }) => void ids.push(idOf(request)));
    const controller = new SendController(createClient({ baseUrl: ORIGIN, storage }), 'chat');
    const resuming = controller.resume();
    const sent = await controller.send({ json: { content: 'new' } });
    const after = await resuming;
    server.events.removeAllListeners();
    expect(sent).toMatchObject({ status: 'answered', data: { answer: 'to new' }, replayed: false });
    expect(after.requestId).toBe(sent.requestId);
    expect(ids).toEqual([sent.requestId]);
    expect(sent.requestId).not.toBe(pending!.requestId);
  });
});

describe('SendController attempt numbers', () => {
  it('count each send on its own, as the client does: a send again after a failure shows 1, 2… not 3 then 1', async () => {
    let calls = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, () =>
        ++calls <= 3 ? new HttpResponse(null, { status: 503 }) : HttpResponse.json({ ok: true }),
      ),
    );
    const controller = new SendController(createClient({ baseUrl: ORIGIN, retry: { limit: 2, delay: 0 } }), 'chat');
    const seen: Pick<SendState, 'status' | 'attempt'>[] = [];
    controller.subscribe(() => {
      const { status, attempt } = controller.getSnapshot();
      seen.push({ status, attempt });
    });
    const failed = await controller.send({ json: {} });
    expect(failed).toMatchObject({ status: 'failed', attempt: 3, error: { attempts: 3 } });
    seen.length = 0;
    const answered = await controller.send();
    expect(answered).toMatchObject({ status: 'answered', requestId: failed.requestId, attempt: 1, retryLimit: 2 });
    expect(seen.map((s) => s.attempt)).toEqual([0, 1, 1]);
  });
});
