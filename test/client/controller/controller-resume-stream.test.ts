/**
 * SendController.resume() and a streamed send's text, over hand-made clients.
 * resume(): nothing happens without a pending intent, or without a client that can
 * `pending` and `resend`; a send in flight is what it resolves with; the stored intent
 * goes again with the controller's `signal` and both listeners (and nothing else), and
 * its body shows as `json` only when its content type says JSON. A streamed send: the
 * text so far grows with each body piece and typeless event, a restart empties it,
 * typed events and empty pieces add nothing (and tell no one).
 */

import {
  type ControllerClient,
  SendController,
  type SendEvent,
  type SendState,
  type StoredIntent,
  type StreamPart,
} from 'answer-once';
import { describe, expect, it } from 'vitest';
import { answerStreamOf } from '../../support/answer-stream-of.js';

const send = (async () => ({ data: 'sent', replayed: false })) as unknown as ControllerClient['send'];

const stored = (headers: [string, string][], body?: string): StoredIntent => ({
  v: 1,
  requestId: 'stored-id',
  input: 'chat',
  url: 'http://127.0.0.1:9/chat',
  method: 'POST',
  headers,
  ...(body !== undefined && { body }),
  createdAt: 1,
});

/** A client that keeps `intent` pending and records each resend's intent and options. */
function resumable(intent: StoredIntent | undefined) {
  const resends: { intent: StoredIntent; options: Record<string, unknown> }[] = [];
  const client: ControllerClient = {
    send,
    pending: async () => intent,
    resend: (async (intent: StoredIntent, options: { onEvent: (e: SendEvent) => void }) => {
      resends.push({ intent, options });
      options.onEvent({ type: 'attempt', requestId: intent.requestId, attempt: 1, retryLimit: 4 });
      return { data: 'again', replayed: true };
    }) as ControllerClient['resend'],
  };
  return { client, resends };
}

const JSON_TYPE: [string, string][] = [['content-type', 'application/json']];

describe('SendController.resume()', () => {
  it('resolves with the idle state when the client cannot say what is pending, or nothing is', async () => {
    expect(await new SendController({ send }, 'chat').resume()).toMatchObject({ status: 'idle' });
    const { client, resends } = resumable(undefined);
    expect(await new SendController(client, 'chat').resume()).toMatchObject({ status: 'idle' });
    expect(resends).toEqual([]);
  });

  it('leaves a pending intent alone when the client cannot resend it', async () => {
    let asked = 0;
    const client: ControllerClient = { send, pending: async () => (asked++, stored(JSON_TYPE, '{}')) };
    expect(await new SendController(client, 'chat').resume()).toMatchObject({ status: 'idle', requestId: undefined });
    expect(asked).toBe(1);
  });

  it('resolves with the settled state of a send in flight', async () => {
    let answer!: (value: unknown) => void;
    const gated = (() => new Promise((resolve) => (answer = resolve))) as unknown as ControllerClient['send'];
    const controller = new SendController({ send: gated }, 'chat');
    const sent = controller.send();
    const resumed = controller.resume();
    answer({ data: 'a', replayed: false });
    expect(await resumed).toBe(await sent);
    expect(await resumed).toMatchObject({ status: 'answered', data: 'a' });
  });

  it('resends the stored intent with its ID, the controller’s signal and both listeners; its JSON body is json', async () => {
    const { client, resends } = resumable(stored(JSON_TYPE, '{"q":1}'));
    const signal = new AbortController().signal;
    const mine: SendEvent[] = [];
    const controller = new SendController(client, 'chat', { request: { signal, onEvent: (e) => mine.push(e) } });
    const seen: SendState[] = [];
    controller.subscribe(() => seen.push(controller.getSnapshot()));
    const state = await controller.resume();
    expect(state).toMatchObject({
      status: 'answered',
      requestId: 'stored-id',
      json: { q: 1 },
      data: 'again',
      replayed: true,
    });
    expect(seen.map((s) => [s.status, s.attempt])).toEqual([
      ['sending', 0],
      ['sending', 1],
      ['answered', 1],
    ]);
    expect(mine.map((e) => e.type)).toEqual(['attempt']);
    const [{ intent, options }] = resends as [(typeof resends)[0]];
    expect(intent.requestId).toBe('stored-id');
    expect(Object.keys(options).sort()).toEqual(['onEvent', 'signal']);
    expect(options.signal).toBe(signal);
  });

  it('passes no signal key without a signal; a body whose type is not JSON is not json', async () => {
    const { client, resends } = resumable(stored([['content-type', 'text/plain']], '42'));
    const state = await new SendController(client, 'chat').resume();
    expect(state).toMatchObject({ status: 'answered', requestId: 'stored-id', json: undefined });
    expect(Object.keys(resends[0]!.options)).toEqual(['onEvent']);
    const bare = resumable(stored([], '42'));
    expect((await new SendController(bare.client, 'chat').resume()).json).toBeUndefined();
  });
});

/** A controller streaming `parts` (stream: true), and the text of every snapshot a subscriber sees. */
async function streamed(parts: StreamPart[]) {
  const stream = (async () => answerStreamOf(parts)) as ControllerClient['stream'];
  const controller = new SendController<string>({ send, stream }, 'chat', { stream: true });
  const seen: [string, string | undefined][] = [];
  controller.subscribe(() => seen.push([controller.getSnapshot().status, controller.getSnapshot().text]));
  const state = await controller.send();
  return { state, seen };
}

const text = (t: string): StreamPart => ({ type: 'text', text: t });
const data = (d: string, type?: string): StreamPart => ({ type: 'event', event: type, data: d, id: undefined });

describe('A streamed send’s text', () => {
  it('grows with body pieces and typeless events; typed events add nothing', async () => {
    const { state, seen } = await streamed([text('a'), data('b'), data('{"x":1}', 'meta'), text('c')]);
    expect(state).toMatchObject({ status: 'answered', data: 'abc', text: 'abc', stopped: false });
    expect(seen).toEqual([
      ['sending', undefined],
      ['streaming', 'a'],
      ['streaming', 'ab'],
      ['streaming', 'abc'],
      ['answered', 'abc'],
    ]);
  });

  it('is emptied by a restart, which is shown at once, then grows from nothing', async () => {
    const { state, seen } = await streamed([text('old'), { type: 'restart', generation: 2 }, text('new')]);
    expect(state).toMatchObject({ status: 'answered', data: 'new' });
    expect(seen.map(([, t]) => t)).toEqual([undefined, 'old', '', 'new', 'new']);
  });

  it('skips empty pieces: a keep-alive before the first text leaves the send `sending`', async () => {
    const { state, seen } = await streamed([data(''), text(''), text('hi'), data('')]);
    expect(state).toMatchObject({ status: 'answered', data: 'hi' });
    expect(seen).toEqual([
      ['sending', undefined],
      ['streaming', 'hi'],
      ['answered', 'hi'],
    ]);
  });
});
