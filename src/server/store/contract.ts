/**
 * The store contract's types in one place: records and their operations (`store.ts`),
 * answer logs (`stream-store.ts`), step journals (`step-store.ts`). A store reaches them
 * as one namespace (`import type * as Store from '…/server/store/contract.js'`, then
 * `Store.WriteResult`, `Store.LogSnapshot`), and the server's entry lists them from here.
 * Types only: the values beside them (`isNewToReader`, `stopOffset`, `LOG_LINGER_MS`) are
 * imported from where they are defined.
 */
export type * from './step-store.js';
export type * from './store.js';
export type * from './stream-store.js';
