/**
 * The page's queue: messages sent while an answer streams or waits for a connection, sent
 * one by one as answers end. useChat sends one request at a time and each request carries
 * the answers before it, so a queued message cannot be built until the answer above it
 * exists: the queue is the page's, not the transport's outbox. It is kept in
 * `localStorage` beside the conversation, so what a closed tab queued is sent by the
 * next page that opens.
 *
 * One tab sends the queue: the one holding the Web Lock `answer-once-ai-demo:queue`,
 * for as long as it is open. Taking each message under a lock would keep one message
 * from going twice, but not the order: a second tab whose conversation ends one answer
 * earlier would send the next message without the answer it must follow. One sender
 * keeps both. When it closes, the lock passes to another tab, which first catches up
 * with the conversation the closed tab saved (`tookOver`).
 */

const QUEUED = 'answer-once-ai-demo:queued';
const LOCK = 'answer-once-ai-demo:queue';

const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};

function read(): readonly string[] {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(QUEUED) ?? '[]');
    return Array.isArray(saved) ? saved.filter((text): text is string => typeof text === 'string') : [];
  } catch {
    return [];
  }
}

let queued = read();

function write(list: readonly string[]): void {
  localStorage.setItem(QUEUED, JSON.stringify(list));
  queued = list;
  notify();
}

// Another tab queued a message, or sent one.
addEventListener('storage', (event) => {
  if (event.key !== QUEUED && event.key !== null) return;
  queued = read();
  notify();
});

/** Adds `text` at the end of the queue. */
export function enqueue(text: string): void {
  write([...read(), text]);
}

/** Takes the first message off the queue (the sending tab only). */
export function takeNext(): string | undefined {
  const [next, ...rest] = read();
  if (next !== undefined) write(rest);
  return next;
}

/** Whether this tab sends the queue, and whether it took that over from a tab now closed. */
interface Sender {
  readonly sends: boolean;
  readonly tookOver: boolean;
}

let sender: Sender = { sends: false, tookOver: false };
const become = (next: Sender) => {
  sender = next;
  notify();
};
/** Held until the page closes. */
const forever = () => new Promise<never>(() => undefined);

async function claim(): Promise<void> {
  // Without Web Locks (old browsers) every tab sends its own queue: one tab is the common case.
  if (!navigator.locks) return become({ sends: true, tookOver: false });
  await navigator.locks.request(LOCK, { ifAvailable: true }, async (lock) => {
    if (lock) {
      become({ sends: true, tookOver: false });
      return forever();
    }
    await navigator.locks.request(LOCK, () => {
      become({ sends: true, tookOver: true });
      return forever();
    });
  });
}
void claim();

/** For `useSyncExternalStore`: the queue and this tab's part in sending it. */
export const queueStore = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  queued: () => queued,
  sender: () => sender,
};

/** Marks a takeover handled. */
export function caughtUp(): void {
  if (sender.tookOver) become({ sends: true, tookOver: false });
}
