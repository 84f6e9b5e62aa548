/**
 * A pending intent as written to storage: enough to send the very same request again,
 * with the same ID, after a reload. Plain JSON.
 */
export interface StoredIntent {
  /** Record format version. */
  readonly v: 1;
  readonly requestId: string;
  /** The `input` given to `send()`, so a UI can find the intent it owns. */
  readonly input: string;
  /** The absolute URL the request went to. */
  readonly url: string;
  readonly method: string;
  /** `Content-Type` and the headers passed to `send()` (never the client's own headers). */
  readonly headers: readonly (readonly [string, string])[];
  /** The request body as text, when there is one. */
  readonly body?: string;
  /** Epoch milliseconds when the intent was first sent. */
  readonly createdAt: number;
  /**
   * Set when this client stopped the intent (`client.stop`): the record stays after it
   * settled, so a reload resends it and the server replays the stopped partial answer.
   */
  readonly stopped?: true;
}

/**
 * Where a client keeps its pending intents between page loads. Methods may be sync or
 * async; each call is independent (one record per `requestId`), so several tabs sharing
 * one storage do not overwrite each other.
 */
export interface IntentStorage {
  /** Writes (or overwrites) the record of `intent.requestId`. */
  save(intent: StoredIntent): void | Promise<void>;
  /** Forgets `requestId`; a no-op when unknown. */
  remove(requestId: string): void | Promise<void>;
  /** Every pending intent, oldest first. */
  list(): readonly StoredIntent[] | Promise<readonly StoredIntent[]>;
}

/**
 * What `createClient({ storage })` takes: an {@link IntentStorage} that brings what the
 * client does with stored intents. `localStorageAdapter()`, `sessionStorageAdapter()` and
 * `memoryStorageAdapter()` return one; `storageAdapter(yours)` makes your own one.
 */
export interface StorageAdapter extends IntentStorage {
  /** Builds the client's writing, checking and resending of stored intents (./resuming.ts). */
  readonly resuming: (client: never) => unknown;
}

/**
 * True when `value` claims to be a record of this version (`v: 1`, a string
 * `requestId`): `resume()` then checks it whole (./validate.ts), refuses and removes it
 * when it is not one it may send.
 */
export function claimsStoredIntent(value: unknown): value is StoredIntent {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return r.v === 1 && typeof r.requestId === 'string';
}

export function byCreatedAt(a: StoredIntent, b: StoredIntent): number {
  return a.createdAt - b.createdAt;
}
