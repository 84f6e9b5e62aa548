/**
 * client.stream's AnswerStream through a stub fetch: its fields read from the answer's
 * headers (requestId, replayed, attached, stopped — `true` in any case — and generation),
 * and its parts: events with their type, data and id, the restart and stopped markers,
 * UTF-8 text split anywhere for a body that is not an event stream, none for an empty
 * answer, and the body let go of when the loop is left early.
 */

import { createClient, type SendEvent, type StreamPart, streaming } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { scripted, watchedBody } from '../../support/scripted-fetch.js';

const BASE = 'http://127.0.0.1:9/';

function clientOf(answer: () => Response) {
  return createClient({ streaming, baseUrl: BASE, fetch: scripted(answer).fetch, retry: { delay: 0, limit: 0 } });
}
const chunked = (headers: HeadersInit, ...chunks: (string | number[])[]) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks)
          controller.enqueue(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : new Uint8Array(chunk));
        controller.close();
      },
    }),
    { headers },
  );
async function collect(parts: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe('client.stream: the AnswerStream', () => {
  it('reads attached, stopped and generation from the headers; replayed from the send; requestId as given', async () => {
    const client = clientOf(() =>
      chunked({
        'content-type': 'text/plain',
        'x-idempotent-attached': 'True',
        'x-idempotent-stopped': 'TRUE',
        'x-idempotent-generation': '7',
        'x-idempotent-replayed': 'true',
      }),
    );
    const answer = await client.stream('a', { json: {}, requestId: 'req-stream-edge-1' });
    expect(answer).toMatchObject({
      requestId: 'req-stream-edge-1',
      replayed: true,
      attached: true,
      stopped: true,
      generation: 7,
    });
    expect(answer.response.status).toBe(200);
    await collect(answer);
  });

  it('says false and undefined when the headers are absent or not true', async () => {
    const absent = await clientOf(() => chunked({})).stream('a', { json: {} });
    expect(absent).toMatchObject({ replayed: false, attached: false, stopped: false, generation: undefined });
    const no = await clientOf(() => chunked({ 'x-idempotent-attached': 'false', 'x-idempotent-stopped': 'yes' })).stream(
      'a',
      {
        json: {},
      },
    );
    expect([no.attached, no.stopped]).toEqual([false, false]);
  });

  it('hands its own onEvent the attempts and the settled event', async () => {
    const events: SendEvent[] = [];
    const answer = await clientOf(() => chunked({}, 'x')).stream('a', { json: {}, onEvent: (event) => events.push(event) });
    await collect(answer);
    expect(events.map((event) => event.type)).toEqual(['attempt', 'settled']);
    expect(events[1]).toMatchObject({ outcome: 'answered', attempts: 1 });
  });
});

describe('client.stream: the parts', () => {
  it('yields each event with its type, data and id, and the restart and stopped markers as parts of their own', async () => {
    const body = [
      'data: one\nid: 3.0\n\n',
      'event: delta\ndata: two\n\n',
      'event: answer-once.restart\ndata: {"generation":4}\nid: 4.0\n\n',
      'data: again\n\n',
      'event: answer-once.stopped\ndata: {}\n\n',
    ].join('');
    const client = clientOf(() =>
      chunked({ 'content-type': 'text/event-stream; charset=utf-8' }, body.slice(0, 17), body.slice(17)),
    );
    expect(await collect(await client.stream('a', { json: {} }))).toEqual([
      { type: 'event', event: undefined, data: 'one', id: '3.0' },
      { type: 'event', event: 'delta', data: 'two', id: undefined },
      { type: 'restart', generation: 4 },
      { type: 'event', event: undefined, data: 'again', id: undefined },
      { type: 'stopped' },
    ]);
  });

  it('yields a plain body as UTF-8 text, a character split across chunks whole, and no empty parts', async () => {
    const euro = [...new TextEncoder().encode('€')];
    const client = clientOf(() => chunked({ 'content-type': 'text/plain' }, 'a', [euro[0]!], [...euro.slice(1), 0x62], ''));
    const parts = await collect(await client.stream('a', { json: {} }));
    expect(parts).toEqual([
      { type: 'text', text: 'a' },
      { type: 'text', text: '€b' },
    ]);
  });

  it('ends a body cut mid-character with the replacement character', async () => {
    const client = clientOf(() => chunked({ 'content-type': 'text/plain' }, 'a', [0xe2, 0x82]));
    const parts = await collect(await client.stream('a', { json: {} }));
    expect(parts.map((part) => (part.type === 'text' ? part.text : '')).join('')).toBe('a\ufffd');
  });

  it('yields nothing for an answer with no body', async () => {
    const client = clientOf(() => new Response(null, { status: 204 }));
    expect(await collect(await client.stream('a', { json: {} }))).toEqual([]);
  });

  it('lets go of the body when the loop is left early, and not when it read to the end', async () => {
    const watched = watchedBody('data: a\n\n');
    const answer = await clientOf(
      () => new Response(watched.body, { headers: { 'content-type': 'text/event-stream' } }),
    ).stream('a', { json: {} });
    for await (const part of answer) {
      expect(part).toMatchObject({ data: 'a' });
      break;
    }
    expect(watched.cancelled()).toBe(true);
    expect(answer.response.body!.locked).toBe(false);
    const whole = await clientOf(() => chunked({}, 'x')).stream('a', { json: {} });
    await collect(whole);
    expect(whole.response.body!.locked).toBe(false);
  });

  it('lets go of the body when its first event is a restart marker it cannot read', async () => {
    const watched = watchedBody('event: answer-once.restart\ndata: not json\n\n');
    const answer = await clientOf(
      () => new Response(watched.body, { headers: { 'content-type': 'text/event-stream' } }),
    ).stream('a', { json: {} });
    await expect(collect(answer)).rejects.toThrow();
    expect(watched.cancelled()).toBe(true);
  });
});
