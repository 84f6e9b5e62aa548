/**
 * SendController's rules over a hand-made client whose sends the spec settles by hand:
 * which client events move the state (and the `retry.reason` a UI shows), which intent a
 * `send()` sends (joined while in flight, the same ID and request after a failure, a new
 * one after an answer, a stop or a reset), what `stop()` and `reset()` do, that a
 * caller's listener that throws still lets the controller's own run, and that a
 * non-Error rejection fails the send with an Error whose `cause` is it.
 */

import { type ControllerClient, SendController, type SendEvent, type SendState, type StopResult } from 'answer-once';
import { describe, expect, it } from 'vitest';

interface Call {
  readonly input: string;
  readonly options: { requestId: string; json?: unknown; onEvent: (event: SendEvent) => void };
  readonly answer: (data: unknown, replayed?: boolean) => void;
  readonly fail: (error: unknown) => void;
}

/** A client whose every send waits until the spec answers or fails it; `stop` records its IDs. */
function handClient({ stop = true } = {}) {
  const calls: Call[] = [];
  const stopped: string[] = [];
  const send = (input: string, options: Call['options']) =>
    new Promise((resolve, reject) => {
      calls.push({ input, options, answer: (data, replayed = false) => resolve({ data, replayed }), fail: reject });
    });
  const client: ControllerClient = { send: send as unknown as ControllerClient['send'] };
  const result = { outcome: 'stopped' } as unknown as StopResult;
  if (stop) client.stop = async (id) => (stopped.push(id as string), result);
  return { client, calls, stopped, result };
}

/** Every snapshot a subscriber is told of. */
function watch(controller: SendController) {
  const seen: SendState[] = [];
  controller.subscribe(() => seen.push(controller.getSnapshot()));
  return seen;
}

const event = (e: Record<string, unknown>) => ({ requestId: 'r', ...e }) as SendEvent;

describe('SendController: client events', () => {
  it('moves through attempt, retry (reason with its status), 202 and polls; other events move nothing', async () => {
    const { client, calls } = handClient();
    const controller = new SendController(client, 'chat');
    const seen = watch(controller);
    const sent = controller.send();
    const { onEvent } = calls[0]!.options;
    onEvent(event({ type: 'attempt', attempt: 1, retryLimit: 2 }));
    onEvent(event({ type: 'retry', retry: 1, retryLimit: 2, reason: 'status', status: 503, delay: 10 }));
    onEvent(event({ type: 'attempt', attempt: 2, retryLimit: 2 }));
    onEvent(event({ type: 'retry', retry: 2, retryLimit: 2, reason: 'network', delay: 20 }));
    onEvent(event({ type: 'accepted', statusUrl: '/s', delay: 0 }));
    onEvent(event({ type: 'poll', polls: 3, url: '/s' }));
    onEvent(event({ type: 'replayed', status: 200 }));
    calls[0]!.answer({ a: 1 }, true);
    expect(await sent).toMatchObject({ status: 'answered', data: { a: 1 }, replayed: true, stopped: false, polls: 3 });
    expect(seen.map((s) => [s.status, s.attempt, s.retry?.reason, s.polls])).toEqual([
      ['sending', 0, undefined, 0],
      ['sending', 1, undefined, 0],
      ['retrying', 1, 'status 503', 0],
      ['sending', 2, undefined, 0],
      ['retrying', 2, 'network', 0],
      ['waiting', 2, undefined, 0],
      ['waiting', 2, undefined, 3],
      ['answered', 2, undefined, 3],
    ]);
    expect(seen[2]!.retry).toEqual({ number: 1, reason: 'status 503', delayMs: 10 });
  });

  it('fails a send rejected with a non-Error with an Error whose message and cause are it', async () => {
    const { client, calls } = handClient();
    const controller = new SendController(client, 'chat');
    const sent = controller.send();
    calls[0]!.fail('boom');
    const state = await sent;
    expect(state.status).toBe('failed');
    expect(state.error).toBeInstanceOf(Error);
    expect(state.error).toMatchObject({ message: 'boom', cause: 'boom' });
  });

  it('runs its own listener after a caller’s listener that throws: the state still moves', async () => {
    const { client, calls } = handClient();
    const mine: string[] = [];
    const controller = new SendController(client, 'chat', {
      request: {
        onEvent: (e) => {
          mine.push(e.type);
          throw new Error('listener broke');
        },
      },
    });
    void controller.send();
    expect(() => calls[0]!.options.onEvent(event({ type: 'attempt', attempt: 1, retryLimit: 0 }))).toThrow('listener broke');
    expect(mine).toEqual(['attempt']);
    expect(controller.getSnapshot()).toMatchObject({ status: 'sending', attempt: 1, retryLimit: 0 });
  });

  it('fails a streaming send with a TypeError when the client has no stream()', async () => {
    const { client, calls } = handClient();
    const state = await new SendController(client, 'chat', { stream: true }).send();
    expect(state.status).toBe('failed');
    expect(state.error).toEqual(
      new TypeError('answer-once: `stream` needs a client with `stream()` (createClient({ streaming })).'),
    );
    expect(calls).toEqual([]);
  });
});

describe('SendController: which intent a send() sends', () => {
  it('joins a send in flight: the same promise, one client call', async () => {
    const { client, calls } = handClient();
    const controller = new SendController(client, 'chat');
    const first = controller.send({ json: 1 });
    expect(controller.send({ json: 2 })).toBe(first);
    calls[0]!.answer('a');
    await first;
    expect(calls).toHaveLength(1);
  });

  it('sends a new intent after an answer, and the same intent (ID and request) after a failure', async () => {
    const { client, calls } = handClient();
    const controller = new SendController(client, 'chat');
    const first = controller.send({ json: { q: 1 } });
    calls[0]!.answer('a');
    await first;
    const second = controller.send({ json: { q: 2 } });
    calls[1]!.fail(new Error('down'));
    expect(await second).toMatchObject({ status: 'failed', json: { q: 2 } });
    const third = controller.send({ json: { q: 3 } });
    calls[2]!.answer('b');
    expect(await third).toMatchObject({ status: 'answered', json: { q: 2 }, data: 'b' });
    const [a, b, c] = calls.map((call) => call.options);
    expect(b!.requestId).not.toBe(a!.requestId);
    expect(c!.requestId).toBe(b!.requestId);
    expect([a!.json, b!.json, c!.json]).toEqual([{ q: 1 }, { q: 2 }, { q: 2 }]);
  });
});

describe('SendController.stop()', () => {
  it('resolves undefined with nothing in flight (idle or answered), without asking the client', async () => {
    const { client, calls, stopped } = handClient();
    const controller = new SendController(client, 'chat');
    expect(await controller.stop()).toBeUndefined();
    const sent = controller.send();
    calls[0]!.answer('a');
    await sent;
    expect(await controller.stop()).toBeUndefined();
    expect(stopped).toEqual([]);
  });

  it('stops the intent in flight by its ID; a send after it failed is a new intent, not a resend', async () => {
    const { client, calls, stopped, result } = handClient();
    const controller = new SendController(client, 'chat', { stopGuardMs: 0 });
    const sent = controller.send({ json: 'q' });
    const { requestId } = calls[0]!.options;
    expect(await controller.stop()).toBe(result);
    expect(stopped).toEqual([requestId]);
    calls[0]!.fail(new Error('intent-stopped'));
    expect((await sent).status).toBe('failed');
    void controller.send({ json: 'next' });
    expect(calls[1]!.options).toMatchObject({ json: 'next' });
    expect(calls[1]!.options.requestId).not.toBe(requestId);
  });

  it('is refused with a TypeError when the client has no stop()', async () => {
    const { client } = handClient({ stop: false });
    const controller = new SendController(client, 'chat');
    void controller.send();
    await expect(controller.stop()).rejects.toThrow(
      new TypeError('answer-once: `stop()` needs a client with `stop()` (createClient()).'),
    );
  });
});

describe('SendController.reset()', () => {
  it('drops a send’s late events and outcome; its own promise still resolves with its outcome', async () => {
    const { client, calls } = handClient();
    const controller = new SendController(client, 'chat');
    const sent = controller.send();
    controller.reset();
    const seen = watch(controller);
    calls[0]!.options.onEvent(event({ type: 'attempt', attempt: 1, retryLimit: 0 }));
    calls[0]!.answer('late');
    expect(await sent).toMatchObject({ status: 'answered', data: 'late' });
    expect(seen).toEqual([]);
    expect(controller.getSnapshot()).toMatchObject({ status: 'idle', requestId: undefined });
  });

  it('lets the next send start a new intent that the old send’s settling does not unjoin', async () => {
    const { client, calls } = handClient();
    const controller = new SendController(client, 'chat');
    const old = controller.send();
    controller.reset();
    const current = controller.send();
    expect(current).not.toBe(old);
    calls[0]!.answer('old');
    await old;
    expect(controller.send()).toBe(current);
    expect(calls).toHaveLength(2);
    calls[1]!.answer('new');
    expect(await current).toMatchObject({ status: 'answered', data: 'new' });
  });

  it('tells subscribers only when there was something to forget', async () => {
    const { client, calls } = handClient();
    const controller = new SendController(client, 'chat');
    const seen = watch(controller);
    controller.reset();
    expect(seen).toEqual([]);
    const sent = controller.send();
    calls[0]!.answer('a');
    await sent;
    seen.length = 0;
    controller.reset();
    controller.reset();
    expect(seen.map((s) => s.status)).toEqual(['idle']);
  });
});
