// A library built on answer-once, compiled with `declaration: true` against the packed
// package (check-package): every value below is exported with the type TypeScript infers
// from the API, so each must be nameable through the package's public entries (TS2742
// otherwise, "cannot be named without a reference to …/dist/chunk…").
import { createClient, SendController } from 'answer-once';
import { PostgresStoreError, PostgresStoreUnavailableError } from 'answer-once/postgres';
import { RedisStoreClosedError, RedisStoreReplyError } from 'answer-once/redis';
import {
  createIdempotencyHandler,
  IntentExhaustedError,
  MemoryStore,
  MissingRequestIdError,
  runOnce,
  StoreFailedError,
  StoreUnavailableError,
} from 'answer-once/server';

export const client = createClient({ prefix: 'https://api.example.com' });
export const controller = new SendController(client, 'chat');
export const store = new MemoryStore();
export const handle = createIdempotencyHandler({
  store,
  scope: () => ({ user: 'u1' }),
  handler: async () => new Response('answer'),
});
export const once = () => runOnce(store, 'intent-0001', async () => 'answer');

// The problem classes: their literal names, codes and statuses come from the problem table.
export const problemClasses = { MissingRequestIdError, StoreUnavailableError, StoreFailedError, IntentExhaustedError };
export const missing = new MissingRequestIdError('no request ID');
export const status = new StoreUnavailableError('store down').status;
export const problemOf = <E extends MissingRequestIdError | IntentExhaustedError>(error: E) => ({
  code: error.code,
  status: error.status,
  name: error.name,
});

// The store error families, built from one shared shape.
export const storeErrors = {
  PostgresStoreError,
  PostgresStoreUnavailableError,
  RedisStoreClosedError,
  RedisStoreReplyError,
};
export const closed = new RedisStoreClosedError('closed');
export const codeOf = (error: PostgresStoreError) => error.code;
