import { afterEach, beforeEach, vi } from 'vitest';

/** Fake timers (`config`, as `vi.useFakeTimers` takes it) for every spec of the calling file or suite. */
export function useFakeClock(config?: Parameters<typeof vi.useFakeTimers>[0]): void {
  beforeEach(() => {
    vi.useFakeTimers(config);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
