/**
 * What the store contracts (`store-contract.ts`, `stream-store-contract.ts`) share: how a
 * store under test is made and disposed of, the suite's timing options, and the helpers
 * that read an `acquire`.
 */
import type { AcquireResult, IdempotencyRecord, IdempotencyStore } from 'answer-once/server';

/** A store under test and how to dispose of it after each test. */
interface StoreHarness<S extends IdempotencyStore> {
  readonly store: S;
  readonly teardown?: () => Promise<void> | void;
}

/** Makes the store under test: the store itself (closed after each test), or a harness. */
export type StoreSetup<S extends IdempotencyStore> = () => Promise<S | StoreHarness<S>> | S | StoreHarness<S>;

export interface StoreContractOptions {
  /** The lease used by the suite; raise it for a slow store. @default 200 */
  readonly leaseMs?: number;
  /** How late a wake-up or expiry may be observed. @default 100 */
  readonly slackMs?: number;
}

/** Runs `setup` for one test: the store, and its teardown (the harness's, or the store's `close`). */
export async function openStore<S extends IdempotencyStore>(
  setup: StoreSetup<S>,
): Promise<{ store: S; teardown: () => Promise<void> | void }> {
  const made = await setup();
  if ('store' in made && typeof (made as { acquire?: unknown }).acquire !== 'function') {
    const { store, teardown = () => {} } = made as StoreHarness<S>;
    return { store, teardown };
  }
  const store = made as S;
  return { store, teardown: () => store.close?.() };
}

/** A fresh key per test (its own hash tag), so suites may share one database. */
export const contractKey = (): string => `answer-once-contract:{${crypto.randomUUID()}}`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function held(result: AcquireResult): Extract<AcquireResult, { acquired: true }> {
  if (!result.acquired) throw new Error(`expected to acquire, found ${result.record.state}`);
  return result;
}

export function found(result: AcquireResult): IdempotencyRecord {
  if (result.acquired) throw new Error('expected not to acquire');
  return result.record;
}

/** The bytes of a string, and back (a log keeps bytes). */
export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (data: Uint8Array): string => new TextDecoder().decode(data);
