/**
 * A stop the server did not confirm is an error the app sees (PROTOCOL.md § 14.8): behind
 * a status route that does not answer `DELETE` (a Next.js route file exporting `POST` and
 * `GET` only answers 405), `client.stop()` rejects with `StopNotConfirmedError` naming
 * the cause, and the model writes its whole answer; with `DELETE` answered, the stop
 * resolves and the model stops mid-answer.
 */

import { createClient, isStopNotConfirmedError, type StreamPart, stopping, streaming } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { tokenStopRoutes } from '../../support/stop-routes.js';

const TOKENS = Array.from({ length: 40 }, (_, i) => `t${i} `);

const app = (withDelete: boolean) => tokenStopRoutes(TOKENS, 15, withDelete);

/** Streams one answer and stops it after five events; what the stop did, and every part read. */
async function streamAndStop(server: ReturnType<typeof app>) {
  const client = createClient({
    streaming,
    stopping,
    baseUrl: 'http://127.0.0.1:9/',
    fetch: server.fetch,
    retry: { limit: 1 },
  });
  const answer = await client.stream('chat', { json: { q: 'hi' } });
  const parts: StreamPart[] = [];
  let stop: Promise<unknown> | undefined;
  for await (const part of answer) {
    parts.push(part);
    if (parts.length === 5) stop = client.stop(answer.requestId).catch((error: unknown) => error);
  }
  return { stopped: await stop, parts };
}

describe('client.stop behind a status route without DELETE', () => {
  it('rejects with StopNotConfirmedError (405, naming DELETE), and the model writes its whole answer', async () => {
    const server = app(false);
    const { stopped, parts } = await streamAndStop(server);

    expect(isStopNotConfirmedError(stopped)).toBe(true);
    expect(stopped).toMatchObject({ name: 'StopNotConfirmedError', status: 405, retryable: false });
    expect((stopped as Error).message).toMatch(/does not answer DELETE.*may still be generating/);
    expect(server.stats.deletes).toBe(1);
    expect(server.stats.stopsSeen).toBe(0);
    expect(server.stats.written()).toBe(TOKENS.length);
    expect(parts.filter((part) => part.type === 'event')).toHaveLength(TOKENS.length);
    expect(server.stats.modelCalls).toBe(1);
  });
});

describe('client.stop behind a status route that answers DELETE', () => {
  it('resolves stopping, and the model stops mid-answer: one call, far fewer tokens than its whole answer', async () => {
    const server = app(true);
    const { stopped, parts } = await streamAndStop(server);

    expect(stopped).toMatchObject({ outcome: 'stopping' });
    expect(server.stats.stopsSeen).toBe(1);
    expect(server.stats.written()).toBeLessThan(TOKENS.length / 2);
    expect(parts.at(-1)).toEqual({ type: 'stopped' });
    expect(server.stats.modelCalls).toBe(1);
  });
});
