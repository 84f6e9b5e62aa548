/**
 * What `runOnce` stores of a value and of an error, as a later delivery gets it back:
 * `undefined` replays as `null`; a FAILED record the store hands back instead of running
 * again becomes `AttemptFailedError` whose `cause` carries the stored name and message.
 */

import { AttemptFailedError, type IdempotencyStore, MemoryStore, runOnce } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { recordOps } from '../../support/server-support.js';

/** `store`, except that `acquire` never runs a FAILED intent again: it hands the record back. */
function keepsFailures(store: MemoryStore): IdempotencyStore {
  return recordOps(store, {
    acquire: async (key, fingerprint, leaseMs) => {
      const record = await store.get(key);
      return record?.state === 'failed' ? { acquired: false, record } : store.acquire(key, fingerprint, leaseMs);
    },
  });
}

/** The cause of the AttemptFailedError a redelivery of `key` gets from `store`. */
async function causeOnRedelivery(store: IdempotencyStore, key: string): Promise<unknown> {
  let runs = 0;
  const failed = await runOnce(store, key, async () => ++runs).catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(AttemptFailedError);
  expect(runs).toBe(0);
  return (failed as AttemptFailedError).cause;
}

/** A store holding a FAILED record for `key` whose stored error is `error`, written by someone else. */
async function failedWith(error: string, key: string): Promise<IdempotencyStore> {
  const store = new MemoryStore();
  const claim = await store.acquire(key, '', 30_000);
  if (!claim.acquired) throw new Error('the key was not free');
  await store.fail(key, claim.token, error, 60_000);
  return keepsFailures(store);
}

describe('runOnce: stored values and errors', () => {
  it('stores a work that returns nothing, and replays it as null without running again', async () => {
    const store = new MemoryStore();
    const work = vi.fn(async (): Promise<undefined> => undefined);
    expect(await runOnce(store, 'k', work)).toEqual({ value: undefined, replayed: false });
    expect(await runOnce(store, 'k', work)).toEqual({ value: null, replayed: true });
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('gives a thrown error’s name and message back as the cause of AttemptFailedError', async () => {
    const store = new MemoryStore();
    await expect(
      runOnce(store, 'k', async () => {
        throw new RangeError('model overloaded');
      }),
    ).rejects.toThrow(RangeError);
    const cause = await causeOnRedelivery(keepsFailures(store), 'k');
    expect(cause).toBeInstanceOf(Error);
    expect(cause).toMatchObject({ name: 'RangeError', message: 'model overloaded' });
  });

  it('gives a thrown non-Error back as an Error named Error with the thrown value as its message', async () => {
    const store = new MemoryStore();
    await expect(
      runOnce(store, 'k', async () => {
        throw 'rate limited';
      }),
    ).rejects.toBe('rate limited');
    const cause = await causeOnRedelivery(keepsFailures(store), 'k');
    expect(cause).toBeInstanceOf(Error);
    expect(cause).toMatchObject({ name: 'Error', message: 'rate limited' });
  });

  it.each([
    ['text that is not JSON', 'model overloaded'],
    ['JSON without a message', '{"status":503}'],
    ['JSON that is not an object', 'null'],
  ])('gives a stored error it did not write (%s) back as an Error whose message is the stored text', async (_, error) => {
    const cause = await causeOnRedelivery(await failedWith(error, 'k'), 'k');
    expect(cause).toBeInstanceOf(Error);
    expect(cause).toMatchObject({ name: 'Error', message: error });
  });
});
