/**
 * `indexedDbOutbox()`: where sends made offline wait (`createClient({ outbox })`). Each
 * one is kept in IndexedDB (through `idb`) exactly as it was first minted — its ID, URL,
 * method, headers and body — so it survives a reload and a closed tab, and goes once,
 * with that ID, when the browser is back online.
 */
import { type IDBPDatabase, openDB } from 'idb';
import { functionOption, invalidOption, optionsObject, stringOption } from '../../core/options.js';
import type { Outbox, TabLocks } from '../extensions.js';
import { byCreatedAt, claimsStoredIntent } from '../storage/types.js';
import { createOutboxQueue, type OutboxNetwork, type OutboxStore } from './outbox-queue.js';

export interface IndexedDbOutboxOptions {
  /**
   * The IndexedDB database the outbox keeps its sends in (one object store, `sends`).
   * @default 'answer-once-outbox'
   */
  name?: string;
  /**
   * What says the browser is offline and back online.
   * @default navigator.onLine and the window's `online` event
   */
  network?: OutboxNetwork;
  /**
   * The lock manager: one tab of the origin sends the outbox at a time, and a send that
   * another tab still waits for outlives this tab's abort.
   * @default globalThis.navigator?.locks (without it, each tab sends its own, and an abort removes the send)
   */
  locks?: TabLocks;
}

const STORE = 'sends';

const browserNetwork: OutboxNetwork = {
  online: () => (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine !== false,
  onOnline(listener) {
    const target = globalThis as {
      addEventListener?: typeof addEventListener;
      removeEventListener?: typeof removeEventListener;
    };
    target.addEventListener?.('online', listener);
    return () => target.removeEventListener?.('online', listener);
  },
};

/**
 * Sends made offline, in IndexedDB. The database opens on first use, so creating the
 * outbox during server-side rendering is safe.
 */
export function indexedDbOutbox(options: IndexedDbOutboxOptions = {}): Outbox {
  return createOutboxQueue(indexedDbStore(options));
}

function indexedDbStore(options: IndexedDbOutboxOptions): OutboxStore {
  const { name = 'answer-once-outbox', network = browserNetwork, locks } = optionsObject(options, 'options');
  stringOption(name, 'name', 'a non-empty string', (value) => value !== '');
  if (typeof network !== 'object' || network === null) invalidOption('network', 'an object { online, onOnline }', network);
  functionOption(network.online, 'network.online', false);
  functionOption(network.onOnline, 'network.onOnline', false);
  if (locks !== undefined && (typeof locks !== 'object' || locks === null || typeof locks.request !== 'function'))
    invalidOption('locks', 'a lock manager ({ request }, as navigator.locks)', locks);
  let db: Promise<IDBPDatabase> | undefined;
  // A failed open is not kept: the next send tries again.
  const open = () =>
    (db ??= openDB(name, 1, {
      upgrade(database) {
        database.createObjectStore(STORE, { keyPath: 'requestId' });
      },
    }).catch((error: unknown) => {
      db = undefined;
      throw error;
    }));
  /**
   * Runs `op` on the database, opened again once when the connection it had is closing
   * (the browser closed it: the site's data cleared while the page runs).
   */
  async function use<T>(op: (database: IDBPDatabase) => Promise<T>): Promise<T> {
    try {
      return await op(await open());
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name !== 'InvalidStateError') throw error;
      db = undefined;
      return op(await open());
    }
  }
  return {
    network,
    locks: locks ?? (globalThis as { navigator?: { locks?: TabLocks } }).navigator?.locks,
    add: (intent) =>
      use(async (database) => {
        const tx = database.transaction(STORE, 'readwrite');
        if ((await tx.store.getKey(intent.requestId)) === undefined) await tx.store.add(intent);
        await tx.done;
      }),
    remove: (requestId) => use((database) => database.delete(STORE, requestId)),
    async list() {
      const all: unknown[] = await use((database) => database.getAll(STORE));
      return all.filter(claimsStoredIntent).sort(byCreatedAt);
    },
  };
}
