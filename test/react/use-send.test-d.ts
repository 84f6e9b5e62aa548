import type { SendState, StopResult } from 'answer-once';
import type { RetryInfo, useSend } from 'answer-once/react';
import { describe, expectTypeOf, it } from 'vitest';

type Chat = ReturnType<typeof useSend<{ answer: string }, { content: string }>>;

describe('useSend() result', () => {
  it('narrows data on status answered, error on failed, retry on retrying', () => {
    const chat = {} as Chat;
    if (chat.status === 'answered') expectTypeOf(chat.data).toEqualTypeOf<{ answer: string }>();
    else expectTypeOf(chat.data).toEqualTypeOf<undefined>();
    if (chat.status === 'failed') expectTypeOf(chat.error).toEqualTypeOf<Error>();
    if (chat.status === 'retrying') expectTypeOf(chat.retry).toEqualTypeOf<RetryInfo>();
    if (chat.status === 'sending') expectTypeOf(chat.retry).toEqualTypeOf<undefined>();
  });

  it('narrows queued on status offline (the outbox holds the send), and nowhere else', () => {
    const chat = {} as Chat;
    if (chat.status === 'offline') expectTypeOf(chat.queued).toEqualTypeOf<number>();
    if (chat.status === 'failed') expectTypeOf(chat.queued).toEqualTypeOf<undefined>();
  });

  it('carries send, stop and reset beside the state, and the same fields in every status', () => {
    const chat = {} as Chat;
    expectTypeOf(chat.send).returns.resolves.toEqualTypeOf<SendState<{ answer: string }, { content: string }>>();
    expectTypeOf(chat.reset).toEqualTypeOf<() => void>();
    expectTypeOf(chat.stop).toEqualTypeOf<() => Promise<StopResult | undefined>>();
    expectTypeOf(chat.stopped).toEqualTypeOf<boolean>();
    expectTypeOf(chat.attempt).toEqualTypeOf<number>();
    expectTypeOf(chat.json).toEqualTypeOf<{ content: string } | undefined>();
    expectTypeOf(chat).not.toHaveProperty('state');
  });
});
