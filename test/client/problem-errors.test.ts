/**
 * Every problem code of the table (src/core/problems.ts) surfaces as the client error its
 * row names, through `send()` and through the AI SDK transport alike: the class and its
 * `name`, `isResponseError` (read off the table, so a new class cannot be missed), the
 * problem kept, and `retryable` as the row's next step says.
 */
import type { UIMessage } from 'ai';
import { isResponseError, type ResponseError } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { describe, expect, it } from 'vitest';
import { PROBLEMS, type Problem, type ProblemCode } from '../../src/core/problems.js';
import { BASE, scriptedClient } from '../support/scripted-fetch.js';

const ROWS = Object.entries(PROBLEMS) as [ProblemCode, Problem][];

const problem = (code: ProblemCode, status: number) =>
  new Response(JSON.stringify({ type: `https://answer-once.dev/problems/${code}`, title: code, status, code }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  });

const user: UIMessage = { id: 'msg-user-00000001', role: 'user', parts: [{ type: 'text', text: 'hi' }] };

describe('problem codes on the client', () => {
  it.each(ROWS)('send() rejects %s with the error its row names, retryable as its row says', async (code, row) => {
    const { client, server } = scriptedClient(() => problem(code, row.status), { retry: { limit: 0 } });
    const error = (await client.send('chat', { json: {} }).catch((e: unknown) => e)) as ResponseError;
    expect(error.name).toBe(row.error ?? 'ResponseError');
    expect(isResponseError(error)).toBe(true);
    expect(error).toMatchObject({ status: row.status, problem: { code } });
    expect(error.retryable).toBe(row.next !== 'final' && row.next !== 'new-intent');
    expect(server.seen.length).toBeGreaterThanOrEqual(1);
  });

  it.each(ROWS)('the AI transport fails a send answered %s with the same error', async (code, row) => {
    const { client } = scriptedClient(() => problem(code, row.status), { retry: { limit: 0 } });
    const transport = answerOnceTransport({ client, api: `${BASE}chat` });
    const error = await transport
      .sendMessages({
        trigger: 'submit-message',
        chatId: 'c',
        messageId: undefined,
        messages: [user],
        abortSignal: undefined,
      })
      .catch((e: unknown) => e);
    expect(isResponseError(error)).toBe(true);
    expect(error).toMatchObject({
      name: row.error ?? 'ResponseError',
      status: row.status,
      problem: { code },
      retryable: row.next !== 'final' && row.next !== 'new-intent',
    });
  });
});
