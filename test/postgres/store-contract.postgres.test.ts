/**
 * PostgresStore meets the same IdempotencyStore, StreamStore and StepStore contracts as MemoryStore
 * and RedisStore, on a real PostgreSQL: woken by LISTEN/NOTIFY, on a pool of one
 * connection (as advised for `pg` on serverless platforms), and by polling alone
 * (`notifications: false`, as behind a transaction-mode pooler or a serverless driver).
 */

import { describeStepStoreContract, describeStoreContract, describeStreamStoreContract } from 'answer-once/testing';
import { describe } from 'vitest';
import { requirePostgresServer } from '../support/postgres-server.js';
import { usePostgresSuite } from '../support/postgres-suite.js';

const hasPostgres = requirePostgresServer();

describe.skipIf(!hasPostgres)('PostgresStore on a real PostgreSQL', () => {
  const suite = usePostgresSuite();

  describe('with LISTEN/NOTIFY', () => {
    // Polling a minute apart: every wake-up within the contract's bounds is a NOTIFY's.
    const open = () => suite.open({ pollIntervalMs: 60_000 });
    describeStoreContract('PostgresStore', open);
    // A wake-up crosses a real socket and a NOTIFY hop: on a loaded 2-core machine it may be seen 100+ ms late.
    describeStreamStoreContract('PostgresStore', open, { slackMs: 250 });
    describeStepStoreContract('PostgresStore', open, { slackMs: 250 });
  });

  describe('on a pool of one connection (max: 1)', () => {
    const open = () => suite.open({ pool: suite.single, pollIntervalMs: 60_000 });
    describeStoreContract('PostgresStore, pool of one', open, { slackMs: 250 });
    describeStreamStoreContract('PostgresStore, pool of one', open, { slackMs: 250 });
  });

  describe('polling only (notifications: false)', () => {
    const open = () => suite.open({ notifications: false, pollIntervalMs: 25 });
    describeStoreContract('PostgresStore, polling', open, { slackMs: 250 });
    describeStreamStoreContract('PostgresStore, polling', open, { slackMs: 250 });
  });
});
