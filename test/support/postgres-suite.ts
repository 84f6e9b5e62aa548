/**
 * The setup the PostgresStore suites share: one PostgreSQL server for the suite and one
 * pool over it, and stores closed after each test. Call it inside the suite's `describe`.
 */
import { randomUUID } from 'node:crypto';
import { PostgresStore, type PostgresStoreOptions } from 'answer-once/postgres';
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { PostgresServer } from './postgres-server.js';

export interface PostgresSuite {
  /** The suite's server (started before the first test). */
  readonly server: PostgresServer;
  /** The suite's pool over it. */
  readonly pool: pg.Pool;
  /** A pool of one connection over it (`max: 1`, as advised for `pg` on serverless platforms). */
  readonly single: pg.Pool;
  /** A store over the suite's pool (or `options.pool`), closed after the test. */
  open(options?: Partial<PostgresStoreOptions>): PostgresStore;
}

/** A key of its own, in the handler's key format. */
export const newKey = (): string => `answer-once:{user:session:${randomUUID()}}`;

export function usePostgresSuite(): PostgresSuite {
  let server: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  let single: pg.Pool | undefined;
  const stores: PostgresStore[] = [];

  beforeAll(async () => {
    server = await PostgresServer.start();
    pool = new pg.Pool({ connectionString: server.url, max: 20 });
    pool.on('error', () => {}); // an idle connection dropped by a restart: the pool replaces it
    single = new pg.Pool({ connectionString: server.url, max: 1 });
    single.on('error', () => {});
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  afterAll(async () => {
    await Promise.all([pool?.end(), single?.end()]);
    await server?.stop();
  });

  const started = <T>(value: T | undefined): T => {
    if (!value) throw new Error('the suite’s PostgreSQL is not started yet');
    return value;
  };
  const suite: PostgresSuite = {
    get server() {
      return started(server);
    },
    get pool() {
      return started(pool);
    },
    get single() {
      return started(single);
    },
    open(options = {}) {
      const store = new PostgresStore({ ...options, pool: options.pool ?? suite.pool });
      stores.push(store);
      return store;
    },
  };
  return suite;
}
