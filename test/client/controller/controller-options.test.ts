/**
 * What `new SendController()` and `setOptions()` accept: a client with a `send` function,
 * a non-empty input, an options object whose `request` carries no `requestId` (the
 * controller mints one per intent), and `stream` as a boolean or a function of a part.
 * Anything else is refused with a `TypeError` naming the option; what is accepted is
 * used (`stream: true` reads a body's text, a function picks each part's text,
 * `setOptions` replaces the client and input of the next send). The clients are
 * hand-made objects that record their calls.
 */

import { type ControllerClient, SendController } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { answerStreamOf } from '../../support/answer-stream-of.js';

/** A client whose `send` answers `{ input }` at once and records each call. */
function recorder() {
  const calls: { input: string; requestId: unknown }[] = [];
  const client: ControllerClient = {
    send: (async (input: string, options: { requestId?: string }) => {
      calls.push({ input, requestId: options.requestId });
      return { data: { input }, replayed: false };
    }) as unknown as ControllerClient['send'],
  };
  return { client, calls };
}

const { client } = recorder();
const build = (options: unknown) => () =>
  new SendController(client, 'chat', options as ConstructorParameters<typeof SendController>[2]);

describe('SendController options', () => {
  it('refuses a requestId in options.request, naming it: the controller mints one ID per intent', () => {
    expect(build({ request: { requestId: 'mine' } })).toThrow(
      new TypeError(
        'answer-once: `options.request.requestId` must be left out: the controller mints one ID per intent; got "mine".',
      ),
    );
  });

  it('takes a requestId key left undefined, and the other request options', async () => {
    const controller = build({ request: { requestId: undefined, headers: { 'x-a': '1' } } })();
    expect((await controller.send()).status).toBe('answered');
  });

  it('refuses options or options.request that are not objects, naming which', () => {
    expect(build(5)).toThrow(new TypeError('answer-once: `options` must be an options object; got 5.'));
    expect(build({ request: 'x' })).toThrow(
      new TypeError('answer-once: `options.request` must be an options object; got "x".'),
    );
  });

  it('refuses a stream that is neither a boolean nor a function', () => {
    expect(build({ stream: 'yes' })).toThrow(
      new TypeError('answer-once: `options.stream` must be a boolean or a function of a stream part.'),
    );
  });

  it('takes stream: false and stream: true; true streams a body’s text through client.stream', async () => {
    expect((await build({ stream: false })().send()).data).toEqual({ input: 'chat' });
    const streamed: string[] = [];
    const controller = new SendController<string>(
      {
        ...client,
        stream: (async (input: string) => {
          streamed.push(input);
          return answerStreamOf([
            { type: 'text', text: 'hel' },
            { type: 'text', text: 'lo' },
          ]);
        }) as ControllerClient['stream'],
      },
      'chat',
      { stream: true },
    );
    expect(await controller.send()).toMatchObject({ status: 'answered', data: 'hello', text: 'hello' });
    expect(streamed).toEqual(['chat']);
  });

  it('takes a stream function, which picks the text of each part', async () => {
    const controller = new SendController<string>(
      {
        ...client,
        stream: (async () =>
          answerStreamOf([
            { type: 'event', event: 'token', data: 'a', id: undefined },
            { type: 'event', event: 'meta', data: 'x', id: undefined },
            { type: 'event', event: 'token', data: 'b', id: undefined },
          ])) as ControllerClient['stream'],
      },
      'chat',
      { stream: (part) => (part.type === 'event' && part.event === 'token' ? part.data : undefined) },
    );
    expect(await controller.send()).toMatchObject({ status: 'answered', data: 'ab' });
  });
});

describe('SendController client and input', () => {
  const refused = (got: string) =>
    new TypeError(`answer-once: \`client\` must be a client from createClient(); got ${got}.`);

  it('refuses a client that is null, not an object, or without a send function', () => {
    const send = client.send;
    for (const [bad, got] of [
      [null, 'null'],
      [undefined, 'undefined'],
      ['client', '"client"'],
      [Object.assign(() => undefined, { send }), 'a function'],
      [{}, 'an object'],
      [{ send: 'POST' }, 'an object'],
    ] as const) {
      expect(() => new SendController(bad as unknown as ControllerClient, 'chat'), got).toThrow(refused(got));
    }
  });

  it('refuses an empty or non-string input', () => {
    expect(() => new SendController(client, '')).toThrow(
      new TypeError('answer-once: `input` must be a non-empty URL or path string; got "".'),
    );
    expect(() => new SendController(client, 7 as unknown as string)).toThrow(
      new TypeError('answer-once: `input` must be a non-empty URL or path string; got 7.'),
    );
  });

  it('setOptions replaces the client, input and request defaults of the next send, and checks them', async () => {
    const first = recorder();
    const second = recorder();
    const controller = new SendController(first.client, 'one');
    await controller.send();
    controller.setOptions(second.client, 'two');
    controller.reset();
    expect(await controller.send()).toMatchObject({ status: 'answered', data: { input: 'two' } });
    expect(first.calls.map((c) => c.input)).toEqual(['one']);
    expect(second.calls.map((c) => c.input)).toEqual(['two']);

    expect(() => controller.setOptions(second.client, '')).toThrow(/`input`/);
    expect(() => controller.setOptions({} as ControllerClient, 'two')).toThrow(/`client`/);
    expect(() => controller.setOptions(second.client, 'two', { request: { requestId: 'x' } as never })).toThrow(
      /`options\.request\.requestId`/,
    );
  });
});
