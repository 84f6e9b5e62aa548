/**
 * Continued generations on PostgreSQL (PROTOCOL.md § 14.12): two server instances sharing
 * one PostgreSQL through PostgresStore; the first one's producer is killed mid-stream and
 * the deterministic re-run on the other continues the answer its readers already have.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServer, requirePostgresServer } from '../support/postgres-server.js';
import { ServerInstance } from '../support/server-instances.js';
import { expectContinuedAfterKill } from '../support/stream-continued.js';

const hasPostgres = requirePostgresServer();

describe.skipIf(!hasPostgres)('streamed answers across two instances sharing one PostgreSQL', () => {
  let server: PostgresServer;
  let a: ServerInstance;
  let b: ServerInstance;

  beforeAll(async () => {
    server = await PostgresServer.start();
    [a, b] = (await Promise.all(
      ['A', 'B'].map((name) => ServerInstance.start({ name, postgresUrl: server.url, leaseMs: 1_500 })),
    )) as [ServerInstance, ServerInstance];
  });

  afterAll(async () => {
    await Promise.all([a, b].map((instance) => instance?.stop()));
    await server?.stop();
  });

  it('continues on the other instance when the producer is killed (SIGKILL) and the re-run reproduces its answer: no restart marker, every event once', async () => {
    const id = `stream-${randomUUID()}`;
    await expectContinuedAfterKill(a, b, id);
    const calls = [...a.events, ...b.events].filter((event) => event.event === 'stream-start' && event.id === id);
    expect(calls.map((event) => event.instance)).toEqual(['A', 'B']);
  });
});
