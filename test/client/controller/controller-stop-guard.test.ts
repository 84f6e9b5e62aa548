/**
 * No timing of two clicks stops what the first started: `SendController.stop()` (and so
 * `useSend`'s) is ignored within `stopGuardMs` (default 500 ms) of the `send()` — the
 * second click of a double-click lands on a Stop button that took Send's place.
 */

import { type ControllerClient, SendController, type StopResult } from 'answer-once';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** A client whose sends never settle; `stop` counts the stops that reached it. */
function waitingClient() {
  const stopped: string[] = [];
  const client: ControllerClient = {
    send: (() => new Promise(() => undefined)) as unknown as ControllerClient['send'],
    stop: async (id) => (stopped.push(id as string), { outcome: 'stopping' } as unknown as StopResult),
  };
  return { client, stopped };
}

describe('SendController.stop() right after send()', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it.each([100, 200])('ignores a stop %d ms after the send (a double-click): nothing is stopped', async (delay) => {
    const { client, stopped } = waitingClient();
    const controller = new SendController(client, 'chat');
    void controller.send({ json: 'q' });
    vi.advanceTimersByTime(delay);
    expect(await controller.stop()).toBeUndefined();
    expect(stopped).toEqual([]);
    expect(controller.getSnapshot().status).toBe('sending');
  });

  it('stops once the guard has passed (500 ms by default)', async () => {
    const { client, stopped } = waitingClient();
    const controller = new SendController(client, 'chat');
    void controller.send({ json: 'q' });
    vi.advanceTimersByTime(499);
    expect(await controller.stop()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(await controller.stop()).toMatchObject({ outcome: 'stopping' });
    expect(stopped).toEqual([controller.getSnapshot().requestId]);
  });

  it('measures the guard from the send that started the intent, not from a joined second send()', async () => {
    const { client, stopped } = waitingClient();
    const controller = new SendController(client, 'chat');
    void controller.send({ json: 'q' });
    vi.advanceTimersByTime(400);
    void controller.send({ json: 'q' }); // a second click that joined
    vi.advanceTimersByTime(150);
    expect(await controller.stop()).toMatchObject({ outcome: 'stopping' });
    expect(stopped).toHaveLength(1);
  });

  it('takes the guard from stopGuardMs; 0 turns it off', async () => {
    const { client, stopped } = waitingClient();
    const controller = new SendController(client, 'chat', { stopGuardMs: 1_000 });
    void controller.send({ json: 'q' });
    vi.advanceTimersByTime(900);
    expect(await controller.stop()).toBeUndefined();
    controller.setOptions(client, 'chat', { stopGuardMs: 0 });
    expect(await controller.stop()).toMatchObject({ outcome: 'stopping' });
    expect(stopped).toHaveLength(1);
  });

  it.each([-1, 1.5, Number.NaN, '500', 2 ** 31])('refuses stopGuardMs %s with a TypeError naming it', (value) => {
    const { client } = waitingClient();
    expect(() => new SendController(client, 'chat', { stopGuardMs: value as number })).toThrow(
      /`options\.stopGuardMs` must be an integer from 0 to 2147483647/,
    );
  });
});
