import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withDeadline } from '../../../src/server/store/deadline.js';

const late = () => new Error('late');

describe('withDeadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('settles with the promise when it comes first, and leaves no timer behind', async () => {
    const settled = withDeadline(Promise.resolve('answer'), 1_000, late);
    await expect(settled).resolves.toBe('answer');
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes the promise's own rejection through, and leaves no timer behind", async () => {
    const broken = new Error('broken');
    await expect(withDeadline(Promise.reject(broken), 1_000, late)).rejects.toBe(broken);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the timed-out error once timeoutMs passes, not a millisecond before', async () => {
    const timedOut = new Error('timed out');
    let outcome: unknown;
    withDeadline(new Promise(() => {}), 1_000, () => timedOut).catch((error: unknown) => {
      outcome = error;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe(timedOut);
  });

  it('swallows nothing: a promise that rejects after the deadline raises no unhandled rejection', async () => {
    let fail!: (error: Error) => void;
    const slow = new Promise<never>((_, reject) => {
      fail = reject;
    });
    const settled = expect(withDeadline(slow, 10, late)).rejects.toThrow('late');
    await vi.advanceTimersByTimeAsync(10);
    await settled;
    fail(new Error('too late'));
    await vi.advanceTimersByTimeAsync(0);
  });
});
