/**
 * Stop keeps exactly what the user saw: `SendController.stop()` freezes the text shown
 * and names the position of the last part shown (`Last-Event-ID` on the DELETE, through
 * `client.stop({ at })`); the server ends the stored answer there, so a reload shows
 * that same text — even when the stop takes a while to reach the server and the model
 * goes on meanwhile. The reference handler runs in-process; DELETEs are held back.
 */

import { createClient, memoryStorageAdapter, SendController, stopping, streaming } from 'answer-once';
import { createIdempotencyHandler } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';
import { tokenResponse } from '../../support/token-stream.js';

const TOKENS = Array.from({ length: 60 }, (_, i) => `t${i} `);
const BASE = 'http://127.0.0.1:9/';

/** A chat server whose stop requests arrive `stopLatencyMs` late, recording their headers. */
function chatServer(kind: 'sse' | 'text', stopLatencyMs = 120) {
  const stats = { modelCalls: 0, stops: [] as Headers[] };
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    flushMs: 5,
    handler: async (request, { signal }) => {
      stats.modelCalls += 1;
      await request.text();
      return tokenResponse(TOKENS, { kind, delayMs: 10, signal });
    },
  });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === 'DELETE') {
      stats.stops.push(request.headers);
      await sleep(stopLatencyMs);
    }
    return handle(request);
  };
  return { stats, fetch: fetch as typeof globalThis.fetch };
}

describe('SendController.stop(): the text on screen is the text kept', () => {
  it.each(['sse', 'text'] as const)(
    'answers (%s body) exactly the text shown at the stop, names its position, and a reload shows the same text',
    async (kind) => {
      const server = chatServer(kind);
      const storage = memoryStorageAdapter();
      const page = () => createClient({ streaming, stopping, baseUrl: BASE, fetch: server.fetch, storage });
      const controller = new SendController<string>(page(), 'chat', { stream: true, stopGuardMs: 0 });
      const sent = controller.send({ json: { content: 'hi' } });
      await expect.poll(() => controller.getSnapshot().text?.length ?? 0).toBeGreaterThan(12);
      const shown = controller.getSnapshot().text;
      const stopped = controller.stop();
      await sleep(60); // the model goes on while the stop travels
      expect(controller.getSnapshot().text).toBe(shown);
      expect((await stopped)?.outcome).toBe('stopping');
      const state = await sent;
      expect(state).toMatchObject({ status: 'answered', stopped: true, data: shown });
      expect(server.stats.stops[0]?.get('Last-Event-ID')).toMatch(/^\d+\.\d+$/);

      const reloaded = new SendController<string>(page(), 'chat', { stream: true });
      expect(await reloaded.resume()).toMatchObject({ status: 'answered', replayed: true, stopped: true, data: shown });
      expect(server.stats.modelCalls).toBe(1);
    },
  );

  it('shows the whole answer when it had ended before the stop reached the server', async () => {
    const server = chatServer('sse', 1_500);
    const controller = new SendController<string>(
      createClient({ streaming, stopping, baseUrl: BASE, fetch: server.fetch }),
      'chat',
      {
        stream: true,
        stopGuardMs: 0,
      },
    );
    const sent = controller.send({ json: { content: 'hi' } });
    await expect.poll(() => controller.getSnapshot().text?.length ?? 0).toBeGreaterThan(0);
    void controller.stop();
    const state = await sent;
    expect(state).toMatchObject({ status: 'answered', stopped: false, data: TOKENS.join('') });
  });
});

describe('client.stop({ at })', () => {
  it('sends the position as Last-Event-ID, and refuses one that is not a position, naming `at`', async () => {
    const server = chatServer('sse', 0);
    const client = createClient({ streaming, stopping, baseUrl: BASE, fetch: server.fetch });
    await expect(client.stop('01JUNKNOWNINTENT000000000', { at: '17.x' })).rejects.toThrow(/`at` must be a position/);
    expect(server.stats.stops).toHaveLength(0);
    await client.stop('01JUNKNOWNINTENT000000000', { at: '1764581234567.2048' });
    expect(server.stats.stops[0]?.get('Last-Event-ID')).toBe('1764581234567.2048');
  });
});
