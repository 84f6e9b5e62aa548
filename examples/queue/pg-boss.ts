/**
 * `npm run example:queue:pg-boss`: 200 messages through pg-boss on PostgreSQL, with lost
 * acks and killed workers, consumed by worker processes sharing a PostgresStore on the
 * same database. Prints how many deliveries there were and how many model calls they cost.
 *
 * Options (env): DATABASE_URL (required: a PostgreSQL you may create tables in),
 * MESSAGES (200).
 */
import { runPgBossQueue } from './pg-boss-run.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    'DATABASE_URL is required: a PostgreSQL the example may create tables in (pg-boss’s schema and answer_once), e.g.\n' +
      '  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run example:queue:pg-boss',
  );
  process.exit(1);
}
const messages = Number(process.env.MESSAGES ?? 200);
if (!Number.isInteger(messages) || messages < 1 || messages > 100_000) {
  throw new TypeError('MESSAGES must be a whole number from 1 to 100000.');
}
const stats = await runPgBossQueue({ url, messages });
console.table({
  messages: stats.messages,
  deliveries: stats.deliveries,
  'acks lost': stats.acksLost,
  'workers killed': stats.workersKilled,
  'model calls': stats.modelCalls,
  'most distinct summaries for one message': stats.mostSummariesForOneMessage,
});
