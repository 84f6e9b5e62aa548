/**
 * The AI SDK transport after the server's final 409 `intent-exhausted` (PROTOCOL.md
 * § 5.7): the send fails with `IntentExhaustedError` (what `useChat` shows as its error),
 * and sending that message again is a new intent, never the exhausted ID again.
 */

import { isIntentExhaustedError } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { describe, expect, it } from 'vitest';
import { sendHi } from '../support/ai-transport.js';
import { BASE, scriptedClient } from '../support/scripted-fetch.js';

const exhausted = () =>
  new Response(
    JSON.stringify({
      type: 'https://answer-once.dev/problems/intent-exhausted',
      title: 'Intent exhausted',
      status: 409,
      code: 'intent-exhausted',
    }),
    { status: 409, headers: { 'content-type': 'application/problem+json' } },
  );

describe('answerOnceTransport and intent-exhausted', () => {
  it('answerOnceTransport: fails the send with IntentExhaustedError, and sending the message again is a new intent', async () => {
    const { server, client } = scriptedClient((_request, n) =>
      n === 1
        ? exhausted()
        : new Response('data: {"type":"start"}\n\ndata: [DONE]\n\n', {
            headers: { 'content-type': 'text/event-stream' },
          }),
    );
    const transport = answerOnceTransport({ client, api: `${BASE}chat` });
    const send = () => sendHi(transport);
    const error = await send().catch((e: unknown) => e);
    expect(isIntentExhaustedError(error)).toBe(true);
    const stream = await send();
    await stream.pipeTo(new WritableStream());
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]!.id).not.toBe(server.seen[0]!.id);
  });
});
