/**
 * What the client's `tabs`, `outbox` and `streaming` options plug in, as types only: the
 * client calls these interfaces and never imports their implementations (`shareTabs()` in
 * ./tabs/, `indexedDbOutbox()` in ./outbox/, its own entry, `streaming` in ./stream/), so
 * an app that does not use them does not bundle them.
 */
import type { SendEvent } from './events.js';
import type { StoredIntent } from './storage/types.js';
import type { BodyPosition } from './stream/position.js';

/** One intent sent with its body still to read, answered with a resumable Response. */
export interface OpenedAnswer {
  readonly requestId: string;
  /** The answer, its body resumable; for an empty answer (204, HEAD…) the response as it came. */
  readonly response: Response;
  readonly replayed: boolean;
}

/** The part of the Web Locks API (`navigator.locks`) tab sharing and the outbox use. */
export interface TabLocks {
  request<T>(
    name: string,
    options: { mode?: 'exclusive' | 'shared'; ifAvailable?: boolean; steal?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => T,
  ): Promise<Awaited<T>>;
}

/** The part of `BroadcastChannel` tab sharing uses. */
export interface TabChannel {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  close(): void;
}

/** Opens the answer: from the start, or from `resume` (a takeover); `onChunk` hears each chunk's position. */
export type OpenAnswer = (
  resume: { readonly at: BodyPosition; readonly headers: Record<string, string> } | undefined,
  onChunk: (at: BodyPosition) => void,
) => Promise<OpenedAnswer>;

export interface SharedAnswerOptions {
  readonly signal: AbortSignal | undefined;
  /** Called once when this tab only followed (it never opened): the answer ended, or its reader left. */
  readonly followed: (error: unknown) => void;
  /** Builds the error of an aborted read. */
  readonly aborted: (reason: unknown) => Error;
  /**
   * What bounds a reader of its own, so a follower hears from the reading tab within
   * them (milliseconds): `total` before the answer's head, `idle` between new bytes.
   */
  readonly deadlines: { readonly total: number; readonly idle: number | false };
}

/** What `shareTabs()` gives the client: how it reads a streamed answer with the other tabs. */
export interface TabSharing {
  /**
   * Reads `requestId`'s answer with the other tabs: `open` when this tab reads it (from
   * the start, or from a position on a takeover), else what the reading tab hands on.
   * `undefined` where the runtime has no Web Locks or `BroadcastChannel` (the client
   * then reads it alone).
   */
  share(requestId: string, open: OpenAnswer, options: SharedAnswerOptions): Promise<OpenedAnswer> | undefined;
}

/** What a send is handed to go out (again): the fetch that refuses while offline, and what keeps its request. */
export interface Carried {
  readonly fetch: typeof globalThis.fetch;
  readonly keep: (intent: StoredIntent) => void;
}

/**
 * The outbox a client sends through (`createClient({ outbox: indexedDbOutbox() })`): the
 * sends it keeps, and the queue that wakes them. The client's sends call `carry` (through
 * ../storage/resuming.ts); an app reads `list` and may call `flush`.
 */
export interface Outbox {
  /** Runs `go` for `requestId`, keeping it in the outbox and waiting for the network whenever it is offline. */
  carry<T>(
    requestId: string,
    signal: AbortSignal | undefined,
    emit: ((event: SendEvent) => void) | undefined,
    baseFetch: typeof globalThis.fetch | undefined,
    go: (carried: Carried) => Promise<T>,
  ): Promise<T>;
  /** The waiting sends, in the order they were made. */
  list(): Promise<StoredIntent[]>;
  /** Sends the waiting sends of this tab now, if the browser is online. */
  flush(): Promise<void>;
  /** What the client resumes the outbox's sends with, given no `storage` (../storage/resuming.ts). */
  readonly resuming: (client: never) => unknown;
}

/**
 * What `createClient({ streaming })` takes (`import { streaming } from 'answer-once'`): it
 * builds the client's `fetch` and `stream` over the client's sends (./stream/streaming.ts).
 * Named here without its parts, which build on the client (its sends, its options), so
 * the options stay below the streaming modules.
 */
export interface Streaming {
  readonly attach: (client: never) => unknown;
}

/**
 * What `createClient({ stopping })` takes (`import { stopping } from 'answer-once'`): it
 * builds the client's `stop` (./stop/stop.ts). Named here without its parts, as
 * {@link Streaming} is.
 */
export interface Stopping {
  readonly attach: (client: never) => unknown;
}
