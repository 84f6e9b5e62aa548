/**
 * Tabs of one origin in Node: a Web Locks manager and `BroadcastChannel`s shared by
 * every "tab" made from one `fakeOrigin()`, with the browser's semantics that tab
 * sharing relies on — a lock is held until its callback settles, `ifAvailable` answers
 * `null` when held, waiting requests are granted in order and leave on their signal;
 * a message reaches every other open channel of its name, in order, as a copy, in a
 * later task; `steal` takes a held lock at once, and the request of the tab that held it
 * rejects (`AbortError`). `tab.close()` is what closing a tab does: its locks are released
 * at once and its channels go quiet. `tab.freeze()` is a page that stops running: it keeps
 * its locks, and its channels neither send nor receive.
 */
import type { TabChannel, TabLocks } from 'answer-once';

interface Waiter {
  readonly tab: FakeTab;
  readonly grant: () => void;
}

interface Lock {
  holder: FakeTab | undefined;
  release: (() => void) | undefined;
  /** Takes the lock from its holder: the holder's request rejects. */
  steal: (() => void) | undefined;
  readonly queue: Waiter[];
}

export interface FakeTab {
  readonly locks: TabLocks;
  readonly channel: (name: string) => TabChannel;
  /** Messages this tab's channels posted. */
  readonly posted: () => number;
  /** Closes the tab: its locks are released, its channels neither send nor receive. */
  close(): void;
  /** Stops the tab's page running: its locks stay held, its channels neither send nor receive. */
  freeze(): void;
  readonly closed: boolean;
  readonly frozen: boolean;
}

export function fakeOrigin() {
  const locks = new Map<string, Lock>();
  const channels = new Set<{ name: string; tab: FakeTab; channel: TabChannel; open: boolean }>();

  function lockOf(name: string): Lock {
    let lock = locks.get(name);
    if (!lock) locks.set(name, (lock = { holder: undefined, release: undefined, steal: undefined, queue: [] }));
    return lock;
  }

  function next(lock: Lock): void {
    lock.holder = undefined;
    lock.release = undefined;
    lock.steal = undefined;
    const waiter = lock.queue.shift();
    waiter?.grant();
  }

  function tab(): FakeTab {
    let closed = false;
    let frozen = false;
    let posted = 0;
    const self: FakeTab = {
      get closed() {
        return closed;
      },
      posted: () => posted,
      locks: {
        request(name, options, callback) {
          const lock = lockOf(name);
          return new Promise((resolve, reject) => {
            const run = () => {
              if (closed) return next(lock);
              lock.holder = self;
              let released = false;
              const release = () => {
                // A page that stopped running never lets go of its locks.
                if (released || frozen) return;
                released = true;
                if (lock.release === release) next(lock);
              };
              lock.release = release;
              lock.steal = () => {
                released = true;
                reject(new DOMException('The lock was stolen.', 'AbortError'));
              };
              Promise.resolve()
                .then(() => callback({ name }))
                .then(
                  (value) => {
                    release();
                    resolve(value as never);
                  },
                  (error: unknown) => {
                    release();
                    reject(error);
                  },
                );
            };
            if (options.steal) {
              lock.steal?.();
              return run();
            }
            if (lock.holder === undefined && lock.queue.length === 0) return run();
            if (options.ifAvailable) {
              Promise.resolve()
                .then(() => callback(null))
                .then((value) => resolve(value as never), reject);
              return;
            }
            const waiter: Waiter = { tab: self, grant: run };
            lock.queue.push(waiter);
            options.signal?.addEventListener(
              'abort',
              () => {
                const at = lock.queue.indexOf(waiter);
                if (at === -1) return;
                lock.queue.splice(at, 1);
                reject(new DOMException('The request was aborted.', 'AbortError'));
              },
              { once: true },
            );
          });
        },
      },
      channel(name) {
        const entry = {
          name,
          tab: self,
          open: true,
          channel: {
            onmessage: null as TabChannel['onmessage'],
            postMessage(message: unknown) {
              if (!entry.open || closed) throw new DOMException('The channel is closed.', 'InvalidStateError');
              if (frozen) return;
              posted += 1;
              const copy = structuredClone(message);
              for (const other of channels) {
                if (other === entry || other.name !== name) continue;
                setTimeout(() => {
                  if (other.open && !other.tab.closed && !other.tab.frozen) other.channel.onmessage?.({ data: copy });
                }, 0);
              }
            },
            close() {
              entry.open = false;
              channels.delete(entry);
            },
          },
        };
        channels.add(entry);
        return entry.channel;
      },
      freeze() {
        frozen = true;
      },
      get frozen() {
        return frozen;
      },
      close() {
        closed = true;
        for (const entry of channels) if (entry.tab === self) entry.open = false;
        for (const lock of locks.values()) {
          lock.queue.splice(0, lock.queue.length, ...lock.queue.filter((waiter) => waiter.tab !== self));
          if (lock.holder === self) next(lock);
        }
      },
    };
    return self;
  }

  return { tab };
}
