/**
 * What a client does with stored intents: write each send's record before it leaves,
 * drop it when the intent settles, and check and send records again after a reload
 * (`resume`, `pending`, `resend`). The storage adapters and the outbox carry it (their
 * `resuming`), so a client given neither bundles none of it and is never a lazy chunk
 * away from sending what it stored.
 */
import { REPLAYED_HEADER } from '../../core/headers.js';
import { functionOption } from '../../core/options.js';
import { StoredIntentError } from '../errors/stored-intent-error.js';
import { UnreplayableBodyError } from '../errors/unreplayable-body-error.js';
import type { SendEvent, SendEventListener } from '../events.js';
import type { Outbox } from '../extensions.js';
import type { SendResult } from '../send/run-intent.js';
import type { SendOptions } from '../send/send-options.js';
import { unstorableBodyKind } from '../send/storable-body.js';
import { type Persist, persister, storageUnavailable, storedIntentOf, storedRequest } from './persist.js';
import { type StoppedIntents, stoppedIntents } from './stopped.js';
import { byCreatedAt, type IntentStorage, type StorageAdapter, type StoredIntent } from './types.js';
import { storedIntentProblem } from './validate.js';

/** How one pending intent ended when `resume()` finished it. */
export type ResumeOutcome<TData = unknown> =
  | { readonly requestId: string; readonly input: string; readonly ok: true; readonly result: SendResult<TData> }
  | { readonly requestId: string; readonly input: string; readonly ok: false; readonly error: unknown };

/** Options of `client.resume()` and `client.resend()`. */
export interface ResumeOptions {
  /**
   * Stops every resumed intent.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Receives the events of every resumed intent.
   * @default undefined
   */
  onEvent?: SendEventListener;
}

/** What the client hands `resuming`: where it keeps intents, and how it sends. */
export interface ResumingDeps {
  readonly storage: IntentStorage | undefined;
  readonly outbox: Outbox | undefined;
  /** The client's `baseUrl` (its ky instance's), once known. */
  readonly baseUrl: () => unknown;
  /** The client's reporter for `listener`; `undefined` when nobody listens. */
  readonly emitter: (listener: SendEventListener | undefined) => ((event: SendEvent) => void) | undefined;
  /** Sends one intent as `send` does (`label`: the `input` it is stored under). */
  readonly dispatch: (input: URL, label: string, options: SendOptions) => Promise<SendResult>;
}

/** What the client's sends, `resume`, `pending` and `resend` are built from. */
export interface Resuming {
  readonly stopped: StoppedIntents;
  /** Throws `UnreplayableBodyError` for a body storage could not hold as text. */
  refuse(body: BodyInit | null | undefined, requestId: string): void;
  /**
   * Runs one send's attempt loop, `go`, keeping its intent: the record written before the
   * first attempt leaves and, with an outbox, the send carried through it (kept there, and
   * sent again once the browser is back online). `keep` false: a reconnect of an intent
   * already kept, run as it is.
   */
  carry(
    requestId: string,
    label: string,
    headers: HeadersInit | undefined,
    keep: boolean,
    signal: AbortSignal | undefined,
    emit: ((event: SendEvent) => void) | undefined,
    baseFetch: Fetch | undefined,
    go: (fetch: Fetch | undefined, persist: Persist | undefined) => Promise<SendResult>,
  ): Promise<SendResult>;
  /** Drops a settled intent's record, unless a stop keeps it (./stopped.ts). */
  forget(requestId: string, replayed: boolean): Promise<void>;
  /** Drops a failed intent's record, as {@link forget} does (`error`'s response says whether it was a replay). */
  forgetFailed(requestId: string, error: unknown): Promise<void>;
  /** Throws `StoredIntentError` (once: the record is removed, the intent reported settled). */
  checkStored(stored: StoredIntent, listener: SendEventListener | undefined): Promise<void>;
  /** `client.resend`, `client.resume` and `client.pending` (see `AnswerOnceClient`). */
  resend(stored: StoredIntent, options?: ResumeOptions): Promise<SendResult>;
  resume(options?: ResumeOptions): Promise<ResumeOutcome[]>;
  pending(input: string, match?: (intent: StoredIntent) => boolean): Promise<StoredIntent | undefined>;
}

type Fetch = typeof globalThis.fetch;

/** Whether a failed send's error carries a replayed answer (a stored one, not run now). */
function replayedError(error: unknown): boolean {
  const response = (error as { response?: unknown } | null)?.response;
  return response instanceof Response && response.headers.has(REPLAYED_HEADER);
}

/**
 * Where stored intents may be sent again: the origin of `baseUrl` and the page's;
 * `undefined` when the client knows neither (then any http(s) origin).
 */
function sendOrigins(baseUrl: unknown): string[] | undefined {
  const page = (globalThis as { location?: { origin?: string; href?: string } }).location;
  const origins = new Set<string>();
  if (page?.origin && page.origin !== 'null') origins.add(page.origin);
  if (baseUrl !== undefined) {
    try {
      origins.add(new URL(String(baseUrl), page?.href).origin);
    } catch {
      // A base ky cannot resolve either: no origin of its own.
    }
  }
  return origins.size > 0 ? [...origins] : undefined;
}

export function resuming({ storage, outbox, baseUrl, emitter, dispatch }: ResumingDeps): Resuming {
  const stopped = stoppedIntents(storage);

  /** Removes `requestId`'s record, if any; a storage that fails (sync or async) removes nothing. */
  async function remove(requestId: string): Promise<void> {
    try {
      await storage?.remove(requestId);
    } catch {
      // A record that outlives its intent is harmless: resuming it replays the answer.
    }
  }

  async function forget(requestId: string, replayed: boolean): Promise<void> {
    if (!stopped.keep(requestId, replayed)) await remove(requestId);
  }

  async function checkStored(stored: StoredIntent, listener: SendEventListener | undefined): Promise<void> {
    const reason = storedIntentProblem(stored, sendOrigins(baseUrl()));
    if (reason === undefined) return;
    const requestId = typeof stored?.requestId === 'string' ? stored.requestId : '';
    const error = new StoredIntentError(requestId, reason);
    await remove(requestId);
    emitter(listener)?.({ type: 'settled', requestId, outcome: 'failed', error, attempts: 0, polls: 0 });
    throw error;
  }

  /** To its stored URL, byte for byte, once checked; a stopped one stays kept until its replay. */
  async function resend(stored: StoredIntent, { signal, onEvent }: ResumeOptions = {}): Promise<SendResult> {
    await checkStored(stored, onEvent);
    stopped.resent(stored);
    return dispatch(new URL(stored.url), stored.input, {
      ...storedRequest(stored),
      ...(signal && { signal }),
      ...(onEvent && { onEvent }),
      requestId: stored.requestId,
    });
  }

  /** Pending intents in storage and the outbox's sends, oldest first. */
  async function waiting(): Promise<readonly StoredIntent[]> {
    const stored = storage
      ? ((await Promise.resolve()
          .then(() => storage.list())
          .catch(storageUnavailable)) ?? [])
      : [];
    if (!outbox) return stored;
    const ids = new Set(stored.map((intent) => intent.requestId));
    return [...stored, ...(await outbox.list()).filter((intent) => !ids.has(intent.requestId))].sort(byCreatedAt);
  }

  return {
    stopped,
    refuse(body, requestId) {
      const kind = storage && unstorableBodyKind(body);
      if (kind) throw new UnreplayableBodyError(kind, { requestId, attempts: 0, polls: 0 });
    },
    carry(requestId, label, headers, keep, signal, emit, baseFetch, go) {
      const save = keep && storage ? persister(storage, stopped, requestId, label, headers) : undefined;
      if (!outbox || !keep) return go(baseFetch, save);
      return outbox.carry(requestId, signal, emit, baseFetch, ({ fetch, keep: hold }) =>
        go(fetch, async (request) => {
          hold(await storedIntentOf(request, requestId, label, headers));
          await save?.(request);
        }),
      );
    },
    forget,
    forgetFailed: (requestId, error) => forget(requestId, replayedError(error)),
    checkStored,
    resend,
    async resume(options) {
      return Promise.all(
        (await waiting()).map(async (stored) => {
          const base = { requestId: stored.requestId, input: stored.input };
          try {
            return { ...base, ok: true as const, result: await resend(stored, options) };
          } catch (error) {
            return { ...base, ok: false as const, error };
          }
        }),
      );
    },
    async pending(input, match) {
      return (await waiting()).find(
        (intent) =>
          storedIntentProblem(intent, undefined) === undefined && intent.input === input && (match?.(intent) ?? true),
      );
    },
  };
}

/**
 * Your own {@link IntentStorage} (IndexedDB, a server, encrypted storage…) as the client's
 * `storage`: `createClient({ storage: storageAdapter(yours) })`. It brings what the client
 * does with stored intents (writing, checking and resending them); the built-in adapters
 * (`localStorageAdapter()`, `sessionStorageAdapter()`, `memoryStorageAdapter()`) are made
 * with it.
 */
export function storageAdapter(storage: IntentStorage): StorageAdapter {
  for (const method of ['save', 'remove', 'list'] as const) functionOption(storage?.[method], method, false);
  return {
    save: (intent) => storage.save(intent),
    remove: (requestId) => storage.remove(requestId),
    list: () => storage.list(),
    resuming,
  };
}
