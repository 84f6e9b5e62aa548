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

/** The claim `acquire` handed out. */
type Claim = Extract<AcquireResult, { acquired: true }>;

/**
 * Before each test, a fresh store from `setup` and a fresh key (its own hash tag, so
 * suites may share one database), handed to `use`; after it, the store's teardown.
 * Returns the suite's timing from `options`, and `claim(leaseMs?)`: the test's key
 * claimed (fingerprint `'fp'`, ten leases unless told).
 */
export function eachStore<S extends IdempotencyStore>(
  setup: StoreSetup<S>,
  options: StoreContractOptions,
  use: (store: S, key: string) => void,
): ContractTiming & { claim: (leaseMs?: number) => Promise<Claim> } {
  let teardown: () => Promise<void> | void = () => {};
  let current: [S, string] | undefined;
  beforeEach(async () => {
    const opened = await openStore(setup);
    teardown = opened.teardown;
    current = [opened.store, `answer-once-contract:{${crypto.randomUUID()}}`];
    use(...current);
  });
  afterEach(async () => {
    current = undefined;
    await teardown();
  });
  const lease = options.leaseMs ?? 200;
  const claim = async (leaseMs = 10 * lease): Promise<Claim> => {
    if (current === undefined) throw new Error('claim() is for inside a test');
    return held(await current[0].acquire(current[1], 'fp', leaseMs));
  };
  return { lease, slack: options.slackMs ?? 100, ttl: 3_600_000, claim };
}

/** {@link eachStore} for a store that keeps logs: its `claim` also says the generation, as {@link claimGeneration} does. */
export function eachStreamStore(
  setup: StoreSetup<StreamStore>,
  options: StoreContractOptions,
  use: (store: StreamStore, key: string) => void,
): ContractTiming & { claim: (leaseMs?: number) => Promise<{ token: string; generation: number }> } {
  const { claim, ...timing } = eachStore(setup, options, use);
  return { ...timing, claim: async (leaseMs) => generationOf(await claim(leaseMs)) };
}

/** Claims `key` (fingerprint `'fp'`) and returns the token and generation a stream store hands out. */
export async function claimGeneration(
  store: StreamStore,
  key: string,
  leaseMs: number,
): Promise<{ token: string; generation: number }> {
  return generationOf(held(await store.acquire(key, 'fp', leaseMs)));
}

/** A stream store's claim: its token, and the generation it must hand out. */
function generationOf(claim: Claim): { token: string; generation: number } {
  expect(claim.generation).toEqual(expect.any(Number));
  return { token: claim.token, generation: claim.generation ?? Number.NaN };
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
