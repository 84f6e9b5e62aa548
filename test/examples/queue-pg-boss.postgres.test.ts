/**
 * The queue example on a real queue (examples/queue/pg-boss-run.ts): pg-boss on a real
 * PostgreSQL redelivers what a lost ack or a killed worker left unacked, and worker
 * processes sharing a PostgresStore on the same database call the model once per message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPgBossQueue } from '../../examples/queue/pg-boss-run.js';
import { PostgresServer, requirePostgresServer } from '../support/postgres-server.js';

const hasPostgres = requirePostgresServer();

describe.skipIf(!hasPostgres)('examples/queue on pg-boss: at-least-once delivery in, one model call per message out', () => {
  let server: PostgresServer;

  beforeAll(async () => {
    server = await PostgresServer.start();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('calls the model once per message while pg-boss redelivers lost acks and the jobs of killed workers', async () => {
    const stats = await runPgBossQueue({ url: server.url, messages: 60, workers: 2, crashes: 2 });
    console.info('[pg-boss queue]', JSON.stringify(stats));
    expect(stats.completed).toBe(60);
    expect(stats.workersKilled).toBe(2);
    expect(stats.acksLost).toBeGreaterThan(0);
    expect(stats.deliveries).toBeGreaterThan(stats.messages);
    expect(stats.modelCalls).toBe(stats.messages);
    expect(stats.mostSummariesForOneMessage).toBe(1);
  });
});
