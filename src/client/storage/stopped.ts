/**
 * What a stop leaves in storage. A pending intent normally leaves `storage` when it
 * settles; one this client stopped (`client.stop`) stays, marked `stopped: true`, so a
 * reload resends it and the server replays the stopped partial answer (PROTOCOL.md
 * § 14.8: `X-Idempotent-Stopped`, no model call). It goes when:
 *
 * - a delivery of its answer that is a **replay** (the page after the stop: a reload's
 *   resume) settles — the stopped answer was shown again, then it is forgotten as any
 *   answer is; or
 * - a **new intent to the same `input`** is stored: the conversation moved on, and
 *   `pending(input)` must find the new one, not the stopped one before it.
 *
 * The live reading that the stop ended (fresh or attached), an abort of it, or its
 * failure do not remove it. (The stop request itself is `../stop.ts`.)
 */
import type { IntentStorage, StoredIntent } from './types.js';

/** Records kept in memory after they were saved, so a stop after its intent settled can still mark it. */
const RECENT_LIMIT = 32;

export interface StoppedIntents {
  /** `client.stop` stopped `requestId` in this page: a settle of it that is not a replay keeps its record. */
  mark(requestId: string): void;
  /**
   * A stored intent goes out again (`resume`, `client.stream` of a stored intent): when its
   * record says `stopped`, it is marked as by {@link mark}, so its replay still finds it.
   */
  resent(intent: StoredIntent): void;
  /** The records saved lately, by ID. */
  readonly recent: Map<string, StoredIntent>;
  /** Notes a record just saved, and removes the stopped records sent to its `input` before it. */
  saved(intent: StoredIntent): Promise<void>;
  /** True when the settled intent's record must stay (`replayed`: how it was answered). */
  keep(requestId: string, replayed: boolean): boolean;
}

export function stoppedIntents(storage: IntentStorage | undefined): StoppedIntents {
  const ids = new Set<string>();
  const recent = new Map<string, StoredIntent>();
  return {
    mark(requestId) {
      ids.add(requestId);
    },
    resent(intent) {
      if (intent.stopped) ids.add(intent.requestId);
    },
    recent,
    async saved(intent) {
      recent.set(intent.requestId, intent);
      if (recent.size > RECENT_LIMIT) recent.delete(recent.keys().next().value!);
      for (const old of storage ? await storage.list() : []) {
        if (old.stopped && old.input === intent.input && old.requestId !== intent.requestId) {
          ids.delete(old.requestId);
          await storage!.remove(old.requestId);
        }
      }
    },
    keep(requestId, replayed) {
      if (!ids.has(requestId)) return false;
      if (replayed) ids.delete(requestId);
      return !replayed;
    },
  };
}

/** Whether `storage` holds `requestId` marked stopped (by this tab or another); a failing storage says no. */
export async function isStoppedInStorage(storage: IntentStorage | undefined, requestId: string): Promise<boolean> {
  if (!storage) return false;
  try {
    return (await storage.list()).some((intent) => intent.requestId === requestId && intent.stopped === true);
  } catch {
    return false;
  }
}
