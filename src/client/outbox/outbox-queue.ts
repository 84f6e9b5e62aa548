/**
 * The client's side of the outbox: a send that finds the browser offline, or whose every
 * attempt failed on the network, is kept in the outbox and waits there; when the browser
 * is back online, the tab holding the outbox's lock wakes its waiting sends one by one, in
 * the order they were made, and each goes again with its original ID and request. A send
 * kept by a tab that closed waits until a page resumes it (`client.resume()`,
 * `useSend`'s `resume`, the AI SDK's reconnect), then goes in its turn.
 */

import { AbortError } from '../errors/abort-error.js';
import { ConnectionError } from '../errors/connection-error.js';
import type { SendEvent } from '../events.js';
import type { Outbox, TabLocks } from '../extensions.js';
import { isNetworkError } from '../ky.js';
import { resuming } from '../storage/resuming.js';
import type { StoredIntent } from '../storage/types.js';

type Fetch = typeof globalThis.fetch;

/** Thrown by the offline fetch: the browser says there is no network, so nothing was sent. */
class Offline extends Error {
  override name = 'Offline';
}

/** True when `error` says the send never reached the server for want of a network. */
function isOffline(error: unknown): boolean {
  return error instanceof Offline || (error instanceof ConnectionError && isNetworkError(error.cause));
}

/** Whether the browser has a network, and when it comes back. */
export interface OutboxNetwork {
  /** False when the browser knows it is offline. */
  online(): boolean;
  /** Calls `listener` each time the browser is back online; returns the unsubscribe. */
  onOnline(listener: () => void): () => void;
}

/** Where an outbox keeps its sends, and what it knows of the network and the other tabs. */
export interface OutboxStore {
  readonly network: OutboxNetwork;
  readonly locks: TabLocks | undefined;
  /** Keeps `intent` (a send already kept stays as first minted). */
  add(intent: StoredIntent): Promise<void>;
  /** Forgets the send `requestId`; a no-op when unknown. */
  remove(requestId: string): Promise<void>;
  /** Every waiting send, in the order they were made. */
  list(): Promise<StoredIntent[]>;
}

const LOCK = 'answer-once:outbox';
/** The lock (one per send, taken shared) that each tab waiting for that send holds. */
const HOLD = 'answer-once:outbox:';
/** Bounds of the retry while the browser says online and nothing gets through. */
const FIRST_LATER_MS = 5_000;
const LAST_LATER_MS = 60_000;
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function createOutboxQueue(outbox: OutboxStore): Outbox {
  /** Sends of this tab waiting for their turn: waking one resolves with how to report its outcome. */
  const waiters = new Map<string, () => Promise<'sent' | 'offline'>>();
  let running: Promise<void> | undefined;
  let again = false;
  /** The next try while the browser says online but the network fails (a captive portal, a dead route). */
  let later: ReturnType<typeof setTimeout> | undefined;
  let laterMs = FIRST_LATER_MS;
  let warned = false;
  outbox.network.onOnline(() => {
    laterMs = FIRST_LATER_MS;
    void flush();
  });

  /**
   * The browser says online, yet nothing got through (a captive portal, a dead route):
   * the waiting sends try again later, each time later (bounded), or at the next `online`.
   */
  function retryLater(): void {
    if (!outbox.network.online() || later !== undefined) return;
    later = setTimeout(() => {
      later = undefined;
      void flush();
    }, laterMs);
    laterMs = Math.min(laterMs * 2, LAST_LATER_MS);
  }

  /**
   * One pass over the outbox, in order; stops at the first send that finds no network.
   * A send of this tab that is no longer kept (another tab sent it, or the store lost it)
   * goes too, after them: the server answers it once, whichever tab asks.
   */
  async function pass(): Promise<void> {
    const kept = (await outbox.list().catch(unavailable)) ?? [];
    const ids = kept.map((intent) => intent.requestId);
    const gone = [...waiters.keys()].filter((requestId) => !ids.includes(requestId));
    for (const requestId of [...ids, ...gone]) {
      if (!outbox.network.online()) return;
      const wake = waiters.get(requestId);
      if (!wake) continue;
      waiters.delete(requestId);
      if ((await wake()) === 'offline') return retryLater();
      laterMs = FIRST_LATER_MS;
      await outbox.remove(requestId).catch(unavailable);
      // One answer shows before the next send leaves.
      await nextTask();
    }
  }

  function flush(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    const { locks } = outbox;
    const run = async () => {
      do {
        again = false;
        // Web Locks refused (site data blocked): this tab sends its own.
        await (locks ? locks.request(LOCK, {}, pass).catch(pass) : pass());
      } while (again && outbox.network.online());
    };
    running = run().finally(() => {
      running = undefined;
    });
    return running;
  }

  /**
   * Waits for `requestId`'s turn (in a pass started `now`, or the next one); resolves with
   * the function that reports how its send went.
   */
  function turn(
    requestId: string,
    signal: AbortSignal | undefined,
    now: boolean,
    release: () => Promise<boolean>,
  ): Promise<(outcome: 'sent' | 'offline') => void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiters.delete(requestId);
        // A send its caller gave up on while it waited is not sent later, unless another
        // tab still waits for it: then that tab's send goes, and the answer ends it.
        const error = new AbortError({ requestId, attempts: 0, polls: 0 }, signal!.reason);
        void release()
          .then((held) => (held ? undefined : outbox.remove(requestId)))
          .catch(unavailable)
          .finally(() => reject(error));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.set(
        requestId,
        () =>
          new Promise((finished) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(finished);
          }),
      );
      if (now && outbox.network.online()) void flush();
    });
  }

  /**
   * Marks `requestId` as waited for by this tab: a shared Web Lock that every tab waiting
   * for it holds (the browser lets go of a closed tab's). Returns how to let go of it,
   * which resolves true when another tab holds it still. Without Web Locks, no tab knows
   * of the others.
   */
  function hold(requestId: string): () => Promise<boolean> {
    const { locks } = outbox;
    const name = HOLD + requestId;
    let letGo!: () => void;
    const over = new Promise<void>((resolve) => (letGo = resolve));
    // Granted after `letGo` (it queued behind another tab's check), it lets go at once.
    const held = locks?.request(name, { mode: 'shared' }, () => over).catch(() => undefined);
    return async () => {
      letGo();
      await held;
      // Not free to take alone (exclusive, if available): another tab holds it.
      return (await locks?.request(name, { ifAvailable: true }, (lock) => lock === null).catch(() => false)) === true;
    };
  }

  async function queued(requestId: string, emit: ((event: SendEvent) => void) | undefined): Promise<void> {
    if (emit) emit({ type: 'queued', requestId, queued: (await outbox.list().catch(() => [requestId])).length });
  }

  /**
   * The store failed (IndexedDB denied in a private mode, its open aborted, the site's
   * data cleared): this send goes without it, as it would without an outbox, and the page
   * is told once that offline queueing is off. The next send tries the store again.
   */
  function unavailable(error: unknown): undefined {
    if (!warned) {
      warned = true;
      console.warn('answer-once: the outbox is unavailable, so sends made offline are not queued:', error);
    }
    return undefined;
  }

  /** Keeps `intent` in the store; false when the store failed. */
  const keep = (intent: StoredIntent): Promise<boolean> =>
    outbox.add(intent).then(
      () => true,
      (error: unknown) => unavailable(error) ?? false,
    );

  return {
    resuming,
    list: () => outbox.list().catch((error: unknown) => unavailable(error) ?? []),
    flush,
    async carry(requestId, signal, emit, baseFetch, go) {
      const offlineFetch: Fetch = (input, init) =>
        outbox.network.online() ? (baseFetch ?? globalThis.fetch)(input, init) : Promise.reject(new Offline());
      let kept: StoredIntent | undefined;
      try {
        kept = (await outbox.list()).find((intent) => intent.requestId === requestId);
      } catch (error) {
        unavailable(error);
        return go({ fetch: (input, init) => (baseFetch ?? globalThis.fetch)(input, init), keep: () => undefined });
      }
      let report: ((outcome: 'sent' | 'offline') => void) | undefined;
      /** Lets go of this tab's hold on the send (taken once it waits in the outbox). */
      let release: (() => Promise<boolean>) | undefined;
      try {
        if (kept) {
          // Kept before (a reload, another page): it goes in its turn.
          await queued(requestId, emit);
          report = await turn(requestId, signal, true, (release = hold(requestId)));
        }
        for (;;) {
          try {
            const result = await go({ fetch: offlineFetch, keep: (intent) => (kept ??= intent) });
            report?.('sent');
            return result;
          } catch (error) {
            if (!kept || !isOffline(error) || signal?.aborted || !(await keep(kept))) {
              report?.('sent');
              throw error;
            }
            await queued(requestId, emit);
            // It waits for the browser's next `online`, or the retry later when the browser
            // already says online (a woken send reports it: its pass ends and schedules it).
            if (report) report('offline');
            else retryLater();
            report = await turn(requestId, signal, false, (release ??= hold(requestId)));
          }
        }
      } finally {
        void release?.();
      }
    },
  };
}
