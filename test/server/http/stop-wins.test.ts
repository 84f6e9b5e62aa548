/**
 * A stop wins (PROTOCOL.md § 14.8): a stop that reaches the work before it answered
 * records the intent as stopped (409 `intent-stopped`) — also when the work catches the
 * abort and returns a response anyway, whatever that response is.
 */
import { describe, expect, it } from 'vitest';
import { type Call, chatApp, chatRequest, expectStopped, until } from '../../support/server-support.js';

const ID = 'req-0000000001';

const stopRequest = (): Request =>
  new Request(`http://app.test/api/status/${ID}`, { method: 'DELETE', headers: { Authorization: 'Bearer alice' } });

/** Work that, once its signal aborts, catches it and answers `late()` instead of giving up. */
const answersAfterAbort =
  (late: () => Response) =>
  ({ context }: Call): Promise<Response> =>
    new Promise<Response>((resolve) => {
      context.signal.addEventListener('abort', () => resolve(late()));
    });

describe('a stop wins', () => {
  it.each([
    ['a 200 JSON answer', () => Response.json({ answer: 'half an answer' })],
    ['a 200 event stream', () => new Response('data: half\n\n', { headers: { 'Content-Type': 'text/event-stream' } })],
    ['a 503', () => new Response('gave up', { status: 503 })],
  ])(
    'records an intent stopped before its work answered as stopped, though the work caught the abort and answered %s',
    async (_, late) => {
      const app = chatApp({ work: answersAfterAbort(late) });
      const fresh = app.handle(chatRequest());
      await until(() => app.calls.length === 1);
      expect((await app.handle(stopRequest())).status).toBe(202);
      await expectStopped(await fresh);
      const replay = await app.handle(chatRequest());
      expect(replay.headers.get('X-Idempotent-Stopped')).toBe('true');
      await expectStopped(replay);
      expect(app.calls).toHaveLength(1);
    },
  );
});
