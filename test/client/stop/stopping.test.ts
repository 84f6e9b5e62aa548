/**
 * Stopping is a capability the app imports: `createClient()` sends JSON (its bundle
 * carries none of the stop modules: tree-shaking.test.ts); `createClient({ stopping })`
 * stops; a client made without it names the option instead of stopping. `SendController` and
 * `answerOnceTransport` bring their own, so their stop works on any client.
 */

import { createClient, SendController, stopping } from 'answer-once';
import { describe, expect, it } from 'vitest';

/** A fetch that answers a send after a while, and a stop's DELETE with 202 at once. */
function server(requests: Request[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    requests.push(request);
    if (request.method === 'DELETE') return new Response(null, { status: 202 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    return Response.json({ ok: true });
  };
}

describe('stopping', () => {
  it('client.stop of a client made without it rejects with a TypeError naming `stopping`, and sends nothing', async () => {
    const requests: Request[] = [];
    const client = createClient({ baseUrl: 'http://127.0.0.1:9/', fetch: server(requests) });
    await expect(client.stop('abcdefgh12')).rejects.toThrow(/client\.stop.*createClient\(\{ stopping \}\)/);
    expect(requests).toEqual([]);
  });

  it('client.stop of a client made with it sends the DELETE and resolves stopping', async () => {
    const requests: Request[] = [];
    const client = createClient({ stopping, baseUrl: 'http://127.0.0.1:9/', fetch: server(requests) });
    await expect(client.stop('abcdefgh12')).resolves.toMatchObject({ outcome: 'stopping' });
    expect(requests.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      'DELETE /api/status/abcdefgh12',
    ]);
  });

  it('SendController.stop() stops on a client made without it', async () => {
    const requests: Request[] = [];
    const controller = new SendController(
      createClient({ baseUrl: 'http://127.0.0.1:9/', fetch: server(requests) }),
      'chat',
      { stopGuardMs: 0 },
    );
    const sent = controller.send({ json: { q: 1 } });
    await expect.poll(() => requests.length).toBe(1);
    await expect(controller.stop()).resolves.toMatchObject({ outcome: 'stopping' });
    await sent;
    expect(requests.map((request) => request.method)).toEqual(['POST', 'DELETE']);
  });

  it('createClient rejects a `stopping` that is not the capability, naming the option', () => {
    expect(() => createClient({ stopping: true as never })).toThrow(/`stopping` must be/);
  });
});
