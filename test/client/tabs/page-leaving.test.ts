import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchPageLeaving } from '../../../src/client/tabs/page-leaving.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A page whose lifecycle events the spec fires, watched with a 3 s stay. */
function page() {
  const events = new EventTarget();
  const watch = watchPageLeaving(events, 3_000);
  const fire = (type: string) => events.dispatchEvent(new Event(type));
  /** What `staying()` says, or 'waiting' while it has not settled. */
  const verdict = async () => {
    let said: boolean | 'waiting' = 'waiting';
    void watch.staying().then((staying) => (said = staying));
    await vi.advanceTimersByTimeAsync(0);
    return said;
  };
  return { fire, verdict, staying: () => watch.staying() };
}

describe('a tab-sharing reader’s page (whether it takes a read over)', () => {
  it('stays, at once, while no navigation has started', async () => {
    vi.useFakeTimers();
    expect(await page().verdict()).toBe(true);
  });

  it('is going once a reload or navigation started (beforeunload), until the page is gone (pagehide)', async () => {
    vi.useFakeTimers();
    const { fire, verdict } = page();
    fire('beforeunload');
    expect(await verdict()).toBe('waiting');
    await vi.advanceTimersByTimeAsync(2_000); // the next page's response is slow to come
    expect(await verdict()).toBe('waiting');
    fire('pagehide');
    expect(await verdict()).toBe(false);
  });

  it('stays when it is still here 3 s after beforeunload (a cancelled navigation, a download)', async () => {
    vi.useFakeTimers();
    const { fire, verdict, staying } = page();
    fire('beforeunload');
    const asked = staying();
    await vi.advanceTimersByTimeAsync(2_999);
    expect(await verdict()).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(await asked).toBe(true);
    expect(await verdict()).toBe(true);
  });

  it('stays again when it comes back from the back/forward cache (pageshow)', async () => {
    vi.useFakeTimers();
    const { fire, verdict } = page();
    fire('beforeunload');
    fire('pagehide');
    expect(await verdict()).toBe(false);
    fire('pageshow');
    expect(await verdict()).toBe(true);
  });
});
