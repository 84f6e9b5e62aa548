/**
 * answer-once/outbox — where sends made offline wait: `indexedDbOutbox()` for
 * `createClient({ outbox })`. Its own entry, so only apps that use it carry IndexedDB's
 * wrapper (`idb`); it is bundled with the app (never a chunk loaded on first use), so an
 * offline send never waits on a download.
 *
 * @module answer-once/outbox
 */

export type { Carried, Outbox } from '../extensions.js';

export type { IndexedDbOutboxOptions } from './indexed-db-outbox.js';
export { indexedDbOutbox } from './indexed-db-outbox.js';
export type { OutboxNetwork, OutboxStore } from './outbox-queue.js';
