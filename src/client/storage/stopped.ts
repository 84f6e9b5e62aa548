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
 * failure do not remove it.
 */
import type { IntentStorage, StoredIntent } from './types.js';

/** Records kept in memory after they were saved, so a stop after its intent settled can still mark it. */
const RECENT_LIMIT = 32;

export interface StoppedIntents {
  /** Notes a record just saved (its URL is where a stop goes). */
  saved(intent: StoredIntent): void;
  /** The record of `requestId`, from storage or the records saved lately. */
  find(requestId: string): Promise<StoredIntent | undefined>;
  /** Marks `requestId` stopped: kept in storage past its settling. */
  mark(requestId: string, known?: StoredIntent): Promise<void>;
  /** `stored` is a stopped record being sent again: its next non-replayed settle keeps it too. */
  resending(stored: StoredIntent): void;
  /** True when the intent's record must stay although it settled (`replayed`: how it was answered). */
  keep(requestId: string, replayed: boolean): boolean;
  /** Removes the stopped records sent to `intent.input` before it. */
  supersede(intent: StoredIntent): Promise<void>;
}

export function stoppedIntents(storage: IntentStorage | undefined): StoppedIntents {
  /** IDs stopped in this page (by this client, or resent from a stopped record). */
  const stopped = new Set<string>();
  const recent = new Map<string, StoredIntent>();

  async function list(): Promise<readonly StoredIntent[]> {
    return storage ? await storage.list() : [];
  }

  return {
    saved(intent) {
      recent.delete(intent.requestId);
      recent.set(intent.requestId, intent);
      if (recent.size > RECENT_LIMIT) recent.delete(recent.keys().next().value!);
    },
    async find(requestId) {
      const stored = (await list().catch(() => [])).find((intent) => intent.requestId === requestId);
      return stored ?? recent.get(requestId);
    },
    async mark(requestId, known) {
      stopped.add(requestId);
      if (!storage) return;
      const record = known ?? (await this.find(requestId));
      if (record && !record.stopped) await storage.save({ ...record, stopped: true });
    },
    resending(stored) {
      if (stored.stopped) stopped.add(stored.requestId);
    },
    keep(requestId, replayed) {
      if (!stopped.has(requestId)) return false;
      if (!replayed) return true;
      stopped.delete(requestId);
      return false;
    },
    async supersede(intent) {
      if (!storage) return;
      for (const old of await list()) {
        if (!old.stopped || old.input !== intent.input || old.requestId === intent.requestId) continue;
        stopped.delete(old.requestId);
        await storage.remove(old.requestId);
      }
    },
  };
}
