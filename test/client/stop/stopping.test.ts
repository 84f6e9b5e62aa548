/**
 * Stopping is a capability the app imports: `createClient()` sends JSON and its bundle
 * carries none of the stop modules; `createClient({ stopping })` stops; a client made
 * without it names the option instead of stopping. `SendController` and
 * `answerOnceTransport` bring their own, so their stop works on any client.
 */

import { createClient, SendController, stopping } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { bundled } from '../../support/bundled.js';

const STOP = /src\/client\/(stop\/stop|errors\/stop-not-confirmed-error)\.ts$/;

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
  it('an app that imports createClient alone bundles none of the stop modules', async () => {
    const files = await bundled("export { createClient } from './src/index.ts';");
    expect(files).toContain('src/client/send/run-intent.ts');
    expect(files.filter((file) => STOP.test(file))).toEqual([]);
  }, 30_000);

  it('an app that hands createClient `stopping` bundles the stop with it, no chunk to load', async () => {
    const files = await bundled(
      "import { createClient, stopping } from './src/index.ts'; export const client = createClient({ stopping });",
    );
    expect(files).toEqual(expect.arrayContaining(['src/client/stop/stop.ts']));
  }, 30_000);

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
