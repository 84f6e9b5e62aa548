/**
 * `answer-once/testing`: the specification every store meets, as suites to run under
 * vitest (an optional peer dependency). The project's own MemoryStore, RedisStore and
 * PostgresStore run exactly these; a store written elsewhere (DynamoDB, Upstash, Durable
 * Objects…) proves itself the same way.
 *
 *   describeStoreContract('MyStore', () => new MyStore(…));          // IdempotencyStore
 *   describeStreamStoreContract('MyStore', () => new MyStore(…));    // + answer logs, waking
 *   describeStepStoreContract('MyStore', () => new MyStore(…));      // + the step journal
 *
 * Each test gets a fresh store from the setup (closed after it, or disposed of by the
 * harness's `teardown`) and a fresh key, on the real clock with short leases.
 *
 * @module answer-once/testing
 */

export { describeStepStoreContract } from './step-store-contract.js';
export { describeStoreContract } from './store-contract.js';
export type { StoreContract, StoreContractOptions, StoreHarness, StoreSetup } from './store-harness.js';
export { bytes, claimGeneration, found, held, text } from './store-harness.js';
export { describeStreamContinueContract } from './stream-store-continue-contract.js';
export { describeStreamStoreContract } from './stream-store-contract.js';
export { describeStreamWakeContract } from './stream-store-wake-contract.js';
