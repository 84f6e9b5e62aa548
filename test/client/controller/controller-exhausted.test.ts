/**
 * SendController (what `useSend` subscribes to) after the server's final 409
 * `intent-exhausted` (PROTOCOL.md § 5.7): the UI's "try again" is a new intent with a new
 * ID, which the server runs, never the exhausted one again.
 */

import { createClient, SendController } from 'answer-once';
import { createIdempotentMock } from 'answer-once/msw';
import { describe, expect, it } from 'vitest';
import { idOf, ORIGIN, useMsw } from '../../support/protocol-fake.js';

const server = await useMsw();

describe('SendController after an exhausted intent', () => {
  it('sends a try again after intent-exhausted as a new intent, which runs, instead of the exhausted one', async () => {
    let runs = 0;
    const mock = createIdempotentMock({
      url: `${ORIGIN}/chat`,
      maxRuns: 2,
      handler: async (request) => {
        const { content } = (await request.json()) as { content: string };
        return ++runs <= 2 ? new Response('overloaded', { status: 503 }) : Response.json({ answer: `to ${content}` });
      },
    });
    server.use(...mock.handlers);
    const ids: (string | undefined)[] = [];
    server.events.on('request:start', ({ request }) => void ids.push(idOf(request)));
    const controller = new SendController(createClient({ baseUrl: ORIGIN, retry: { limit: 5, delay: 1 } }), 'chat');

    const failed = await controller.send({ json: { content: 'hi' } });
    expect(failed).toMatchObject({ status: 'failed', error: { status: 409, problem: { code: 'intent-exhausted' } } });
    expect(runs).toBe(2);
    const again = await controller.send();
    server.events.removeAllListeners();
    expect(again).toMatchObject({ status: 'answered', data: { answer: 'to hi' }, json: { content: 'hi' } });
    expect(again.requestId).not.toBe(failed.requestId);
    expect(runs).toBe(3);
    expect(ids.filter((id) => id === failed.requestId)).toHaveLength(2); // the run, and the one that found it exhausted
  });
});
