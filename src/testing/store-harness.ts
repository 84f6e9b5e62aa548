/**
 * What the store contracts (`store-contract.ts`, `stream-store-contract.ts`) share: how a
 * store under test is made and disposed of, the suite's timing options, and the helpers
 * that read an `acquire`.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import type { AcquireResult, IdempotencyRecord, IdempotencyStore } from '../server/store/store.js';
import type { StreamStore } from '../server/store/stream-store.js';

/** A store under test and how to dispose of it after each test. */
export interface StoreHarness<S extends IdempotencyStore> {
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
async function openStore<S extends IdempotencyStore>(
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

/** The suite's lease, how late a wake-up or expiry may be seen, and a TTL no test outlives. */
export interface ContractTiming {
  readonly lease: number;
  readonly slack: number;
  readonly ttl: number;
}

/** A contract suite: `describe…Contract(name, setup, options?)` for the stores of type `S`. */
export type StoreContract<S extends IdempotencyStore> = (
  name: string,
  setup: StoreSetup<S>,
  options?: StoreContractOptions,
) => void;

/**
 * Before each test, a fresh store from `setup` and a fresh key (its own hash tag, so
 * suites may share one database), handed to `use`; after it, the store's teardown.
 * Returns the suite's timing from `options`.
 */
export function eachStore<S extends IdempotencyStore>(
  setup: StoreSetup<S>,
  options: StoreContractOptions,
  use: (store: S, key: string) => void,
): ContractTiming {
  let teardown: () => Promise<void> | void = () => {};
  beforeEach(async () => {
    const opened = await openStore(setup);
    teardown = opened.teardown;
    use(opened.store, `answer-once-contract:{${crypto.randomUUID()}}`);
  });
  afterEach(async () => {
    await teardown();
  });
  return { lease: options.leaseMs ?? 200, slack: options.slackMs ?? 100, ttl: 3_600_000 };
}

/**
 * {@link eachStore} for a store that keeps logs, with `claim(leaseMs?)`: the test's key
 * claimed (fingerprint `'fp'`, ten leases unless told) as {@link claimGeneration} does.
 */
export function eachStreamStore(
  setup: StoreSetup<StreamStore>,
  options: StoreContractOptions,
  use: (store: StreamStore, key: string) => void,
): ContractTiming & { claim: (leaseMs?: number) => Promise<{ token: string; generation: number }> } {
  let current: [StreamStore, string] | undefined;
  const timing = eachStore(setup, options, (store, key) => {
    current = [store, key];
    use(store, key);
  });
  const claim = (leaseMs = 10 * timing.lease) => {
    if (current === undefined) throw new Error('claim() is for inside a test');
    return claimGeneration(current[0], current[1], leaseMs);
  };
  return { ...timing, claim };
}

/** Claims `key` (fingerprint `'fp'`) and returns the token and generation a stream store hands out. */
export async function claimGeneration(
  store: StreamStore,
  key: string,
  leaseMs: number,
): Promise<{ token: string; generation: number }> {
  const result = held(await store.acquire(key, 'fp', leaseMs));
  expect(result.generation).toEqual(expect.any(Number));
  return { token: result.token, generation: result.generation ?? Number.NaN };
}

/**
 * 16 KB of base64url as a JWT has it: pseudo-random (a fixed xorshift), so it does not
 * compress — a store that indexes the whole key meets its real size.
 */
const TOKEN = (() => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let state = 0x2545f491;
  let token = '';
  for (let index = 0; index < 16 * 1024; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    token += alphabet[(state >>> 0) % 64];
  }
  return token;
})();

/**
 * A key as long as a 16 KB scope makes it (a JWT as the session), from the test's `key`:
 * inside its hash tag, ending in `last`, so two of them differ only in their last character.
 */
export function longKey(key: string, last: string): string {
  return `${key.slice(0, -1)}:${TOKEN}${last}}`;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The claim in an `acquire`'s result; throws (failing the test) when it did not claim. */
export function held(result: AcquireResult): Extract<AcquireResult, { acquired: true }> {
  if (!result.acquired) throw new Error(`expected to acquire, found ${result.record.state}`);
  return result;
}

/** The record an `acquire` found instead of claiming; throws (failing the test) when it claimed. */
export function found(result: AcquireResult): IdempotencyRecord {
  if (result.acquired) throw new Error('expected not to acquire');
  return result.record;
}

/** The bytes of a string, and back (a log keeps bytes). */
export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (data: Uint8Array): string => new TextDecoder().decode(data);
