/**
 * Where the example's intents live: `PostgresStore` from `answer-once/postgres` over the
 * PostgreSQL at `DATABASE_URL` (`npm run demo:next` starts one when it is not set).
 * Records and answer logs live in the database, shared by every instance — what a
 * serverless deployment needs, where each request may run on another instance (and
 * where `MemoryStore` would forget an intent between them, and a retry run the model
 * again). The tables are created on first use. Behind a pooler in transaction mode
 * (a "pooled" connection string), pass `notifications: false`.
 */
import { PostgresStore } from 'answer-once/postgres';
import { Pool } from 'pg';

function open(): PostgresStore {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL });
  pool.on('error', (error) => console.error('postgres:', error));
  return new PostgresStore({ pool });
}

// One per process, whichever route (chat, status) loads this first; on `globalThis`, as
// routes are bundled apart and `next dev` re-evaluates modules on every edit.
const shared = globalThis as typeof globalThis & { answerOnceStore?: PostgresStore };
export const store: PostgresStore = (shared.answerOnceStore ??= open());
