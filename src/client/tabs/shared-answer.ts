/**
 * One streamed answer read by every tab of the origin that asks for it, over one network
 * stream. The tab that holds the intent's lock **leads**: it opens the answer and posts
 * its head and every chunk, with the position after it (PROTOCOL.md § 14.5), on the
 * intent's channel. Every other tab **follows**: it shows what the channel carries and
 * waits in the lock's queue; the lock passes to it when the leader's tab closes (or its
 * read failed), and it opens the answer again from the last chunk it had, leading the
 * rest. A tab that joins late says `hello` and gets everything so far.
 *
 *   tab A (leader)  ── lock ── open ─→ head, chunk(from→to), …, end ─→ channel
 *   tab B (follower) ← channel; waits for the lock; takeover: open from `to` of its last chunk
 */
import { isNullBodyStatus } from '../../core/null-body.js';
import type { OpenAnswer, OpenedAnswer, SharedAnswerOptions, TabChannel, TabLocks } from '../extensions.js';
import { type BodyPosition, positionHeaders } from '../stream/position.js';
import { thisPage } from './page-leaving.js';

/** What the followers need to build the same Response. */
interface Head {
  readonly status: number;
  readonly statusText: string;
  readonly headers: [string, string][];
  readonly url: string;
  readonly replayed: boolean;
}

/** Bytes of the answer from one position to the next (`from: null`: its start). */
interface Piece {
  readonly from: BodyPosition | null;
  readonly to: BodyPosition;
  readonly bytes: Uint8Array;
}

type Message =
  | { readonly t: 'hello' }
  | { readonly t: 'head'; readonly head: Head }
  | { readonly t: 'chunk'; readonly piece: Piece }
  | { readonly t: 'state'; readonly head: Head; readonly pieces: readonly Piece[]; readonly ended: boolean }
  /** The answer ended at `at` (`null`: before any byte). */
  | { readonly t: 'end'; readonly at: BodyPosition | null };

/** The lock and channel name of one intent. */
const tabName = (requestId: string): string => `answer-once:intent:${requestId}`;

/** How long a leader holds the lock after the end it posted. */
const LINGER_MS = 250;
/** How long a follower given the lock waits before it reads the answer itself. */
const TAKEOVER_GRACE_MS = 150;
/**
 * How long a follower's `hello` waits for its answer before it may ask again: the tab it
 * asked may have gone meanwhile (tabs reloaded together), and the next one must hear it.
 */
const ASK_AGAIN_MS = 100;

const samePosition = (a: BodyPosition | null, b: BodyPosition | null) =>
  a === b || (a !== null && b !== null && a.generation === b.generation && a.offset === b.offset);

function headOf({ response, replayed }: OpenedAnswer): Head {
  const { status, statusText, url } = response;
  return { status, statusText, headers: [...response.headers], url, replayed };
}

export function sharedAnswer(
  pair: { readonly locks: TabLocks; readonly channel: (name: string) => TabChannel },
  requestId: string,
  open: OpenAnswer,
  { signal, followed, aborted, deadlines }: SharedAnswerOptions,
): Promise<OpenedAnswer> {
  const name = tabName(requestId);
  const channel = pair.channel(name);
  const queue = new AbortController();
  const pieces: Piece[] = [];
  let head: Head | undefined;
  let at: BodyPosition | null = null;
  /** The answer is whole (this tab read or was told its end). */
  let ended = false;
  /** This tab's reader is gone (cancelled, aborted, errored, closed). */
  let gone = false;
  let leading = false;
  let opened = false;
  /** When this tab last said `hello` and heard no answer yet (0: none pending). */
  let askedAt = 0;
  /** The follower's deadline: it hears nothing new before it, and reads the answer itself. */
  let idle: ReturnType<typeof setTimeout> | undefined;
  let local!: ReadableStreamDefaultController<Uint8Array>;
  /** Cancels the network read this tab leads, when it leads one. */
  let stopLead: (() => void) | undefined;
  let resolve!: (answer: OpenedAnswer) => void;
  let reject!: (error: unknown) => void;
  const answer = new Promise<OpenedAnswer>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });

  const post = (message: Message) => {
    try {
      channel.postMessage(message);
    } catch {
      // The channel closed under us (the tab is going): the followers take over.
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => void (local = controller),
    cancel: (reason) => leave(reason ?? aborted(reason)),
  });

  function show(shown: Head): void {
    const response = new Response(isNullBodyStatus(shown.status) ? null : body, {
      status: shown.status,
      statusText: shown.statusText,
      headers: shown.headers,
    });
    Object.defineProperty(response, 'url', { value: shown.url });
    resolve({ requestId, response, replayed: shown.replayed });
  }

  /** Ends this tab's part: its reader got everything (`error` undefined) or left. */
  function done(error: unknown): void {
    if (gone) return;
    gone = true;
    clearTimeout(idle);
    queue.abort();
    if (!leading) channel.close();
    signal?.removeEventListener('abort', onAbort);
    if (error === undefined) local.close();
    else {
      local.error(error);
      reject(error);
    }
    if (!opened) followed(error);
  }

  function leave(error: unknown): void {
    stopLead?.();
    done(error);
  }

  /** Takes `piece` when it continues what this tab has; false when there is a gap. */
  function take(piece: Piece): boolean {
    if (!samePosition(piece.from, at)) {
      const behind = at !== null && piece.to.generation === at.generation && piece.to.offset <= at.offset;
      return behind;
    }
    pieces.push(piece);
    at = piece.to;
    if (!gone) local.enqueue(piece.bytes);
    watch();
    return true;
  }

  function hello(): void {
    if (askedAt !== 0 && Date.now() - askedAt < ASK_AGAIN_MS) return;
    askedAt = Date.now();
    post({ t: 'hello' });
  }

  /**
   * (Re)starts the follower's deadline — the one a reader of its own would have: before
   * the answer's head, the send's (`totalTimeout`); after it, `idleTimeout` since the last
   * new bytes. A leading tab that says nothing for that long hangs (its page stopped
   * running with the lock held, so the lock never passes): the follower takes the lock
   * from it and reads on from the last chunk it has.
   */
  function watch(): void {
    clearTimeout(idle);
    const ms = head ? deadlines.idle : deadlines.total;
    if (ms === false || leading || gone) return;
    idle = setTimeout(() => {
      void pair.locks.request(name, { steal: true }, lead).catch(() => undefined);
    }, ms);
  }

  channel.onmessage = ({ data }) => {
    const message = data as Message;
    if (leading) {
      if (message.t === 'hello' && head) post({ t: 'state', head, pieces, ended });
      return;
    }
    if (message.t === 'head' || message.t === 'state') {
      if (!head) {
        show((head = message.head));
        watch();
      }
      if (message.t === 'state') {
        askedAt = 0;
        for (const piece of message.pieces) take(piece);
        if (message.ended) finish(message.pieces.at(-1)?.to ?? null);
      }
    } else if (message.t === 'chunk') {
      if (!head || !take(message.piece)) hello();
    } else if (message.t === 'end') {
      finish(message.at);
    }
  };

  /**
   * The answer ended at `end`: done when this tab has it all; else it asks for what it
   * missed (the leader keeps its lock a moment after the end to answer), or reads the
   * rest itself from where it is once the lock is free.
   */
  function finish(end: BodyPosition | null): void {
    if (!samePosition(end, at)) {
      hello();
      return;
    }
    ended = true;
    done(undefined);
  }

  /** Reads the answer from the network (from `at` on a takeover) and hands it to every tab. */
  async function lead(): Promise<void> {
    if (ended || gone || leading) return;
    clearTimeout(idle);
    leading = true;
    opened = true;
    const positions: BodyPosition[] = [];
    let opening: OpenedAnswer;
    try {
      const resume =
        head && at ? { at, headers: positionHeaders(new Response(null, { headers: head.headers }), at) } : undefined;
      opening = await open(resume, (position) => positions.push(position));
    } catch (error) {
      leading = false;
      channel.close();
      done(error);
      return;
    }
    if (!head) {
      head = headOf(opening);
      post({ t: 'head', head });
      show(head);
    }
    const reader = opening.response.body?.getReader();
    let cancelled = false;
    stopLead = () => {
      cancelled = true;
      void reader?.cancel().catch(() => undefined);
    };
    try {
      for (;;) {
        if (!reader) break;
        const { done: over, value } = await reader.read();
        if (over) break;
        const piece: Piece = { from: at, to: positions.shift() ?? at ?? { generation: undefined, offset: 0 }, bytes: value };
        take(piece);
        post({ t: 'chunk', piece });
      }
      if (!cancelled) {
        ended = true;
        post({ t: 'end', at });
        done(undefined);
        // Keeps the lock until the followers heard the end (a message and a lock grant
        // race): none takes over an answer that is whole; a late tab still gets it all.
        await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
      }
    } catch (error) {
      // The followers take over from their last chunk once the lock is free.
      done(error);
    } finally {
      channel.close();
    }
  }

  /**
   * The lock passed to this tab: the reading tab closed or reloaded (or its read failed).
   * A moment's grace first, so a tab that is about to hear the end takes nothing over; nor
   * does a tab that is itself going (tabs reloaded or closed together), however long its
   * navigation takes: it holds the lock until it is gone, and the next tab takes over.
   */
  async function takeOver(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, TAKEOVER_GRACE_MS));
    if (await page.staying()) return lead();
  }

  function onAbort(): void {
    leave(aborted(signal?.reason));
  }
  if (signal?.aborted) {
    channel.close();
    return Promise.reject(aborted(signal.reason));
  }
  signal?.addEventListener('abort', onAbort, { once: true });
  const page = thisPage();

  pair.locks
    .request(name, { ifAvailable: true }, async (lock) => {
      if (lock) return lead();
      // Another tab reads it: follow, and wait in the lock's queue to take over.
      hello();
      watch();
      void pair.locks.request(name, { signal: queue.signal }, takeOver).catch(() => undefined);
    })
    .catch((error: unknown) => {
      // Web Locks refused (site data blocked: `SecurityError`): this tab reads alone, as
      // without the option. (A lock taken from this tab while it leads ends nothing.)
      if (!opened) return lead();
      channel.close();
      reject(error);
    });
  return answer;
}
