/**
 * One worker process of the pg-boss run (`pg-boss-run.ts` starts them): a pg-boss
 * consumer whose handler is the example's `createConsumer` over a PostgresStore on the
 * same PostgreSQL as the queue. It prints one JSON line per event on stdout (pipes are
 * synchronous on Linux, so a SIGKILLed worker has printed all it did):
 *
 *   {"event":"ready"} {"event":"delivery","id":"…","retry":0} {"event":"model-call","id":"…"}
 *   {"event":"published","id":"…","summary":"…","replayed":false} {"event":"ack-lost","id":"…"}
 *   {"event":"crash","id":"…"}
 *
 * Environment: DATABASE_URL, QUEUE, WORKER (name), ACK_LOSS_RATE (the share of handled
 * jobs whose ack is lost: the handler throws after the work is stored, so pg-boss
 * redelivers), CRASH_AT_DELIVERY (this worker SIGKILLs itself after storing that
 * delivery's summary and before acking it: pg-boss redelivers once the job expires).
 */

import { PostgresStore } from 'answer-once/postgres';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import type { Message } from './broker.js';
import { createConsumer } from './consumer.js';

const url = process.env.DATABASE_URL ?? '';
const queue = process.env.QUEUE ?? 'summaries';
const name = process.env.WORKER ?? 'worker';
const ackLossRate = Number(process.env.ACK_LOSS_RATE ?? 0.3);
const crashAt = Number(process.env.CRASH_AT_DELIVERY ?? 0);
const out = (line: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ worker: name, ...line })}\n`);
};

const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on('error', () => {});
const store = new PostgresStore({ pool });

let current = '';
const summarise = async (text: string): Promise<string> => {
  out({ event: 'model-call', id: current });
  await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60)); // the model thinks
  return `summary by ${name}: ${text.slice(0, 24)}…`;
};
const consume = createConsumer(store, summarise, ({ messageId, summary }, replayed) =>
  out({ event: 'published', id: messageId, summary, replayed }),
);

// The run's own instance migrates and supervises (expires the jobs of killed workers).
const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false, migrate: false });
boss.on('error', () => {});
await boss.start();

let deliveries = 0;
await boss.work<Message>(queue, { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
  if (!job) return;
  deliveries += 1;
  current = job.data.id;
  out({ event: 'delivery', id: job.data.id, retry: job.retryCount });
  await consume(job.data);
  if (deliveries === crashAt) {
    out({ event: 'crash', id: job.data.id });
    process.kill(process.pid, 'SIGKILL');
  }
  if (Math.random() < ackLossRate) {
    out({ event: 'ack-lost', id: job.data.id });
    throw new Error('the ack was lost');
  }
});
out({ event: 'ready' });

process.once('SIGTERM', () => {
  void (async () => {
    await boss.stop({ graceful: false, timeout: 1_000 }).catch(() => {});
    await store.close();
    await pool.end();
    process.exit(0);
  })();
});
