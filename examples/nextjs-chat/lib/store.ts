/**
 * Where the example's intents live — the one line to change per deployment.
 *
 * `MemoryStore` serves `next start` (one long-lived Node process: every request reaches
 * the same memory) and nothing else: on a serverless platform each request may land on
 * another instance, and an intent kept in one instance's memory is unknown to the next —
 * the retry would run the model again. Deployed there, use a store every instance shares:
 *
 *   import { PostgresStore } from 'answer-once/postgres';
 *   export const store = new PostgresStore({ pool: new Pool({ connectionString: process.env.DATABASE_URL }) });
 *
 * or `new RedisStore({ client })` from `answer-once/redis`.
 */
import { type IdempotencyStore, MemoryStore } from 'answer-once/server';

// One per process, whichever route (chat, status) loads this first; on `globalThis`, as
// routes are bundled apart and `next dev` re-evaluates modules on every edit.
const shared = globalThis as typeof globalThis & { answerOnceStore?: IdempotencyStore };
export const store: IdempotencyStore = (shared.answerOnceStore ??= new MemoryStore());
