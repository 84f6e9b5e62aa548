/**
 * The queue example on a real queue: pg-boss on PostgreSQL, consumed by worker
 * processes (`pg-boss-worker.ts`) that share a PostgresStore on the same database.
 * At-least-once delivery is forced both ways a real deployment sees it: acks lost
 * (the handler fails after the work is stored) and workers killed (SIGKILL between
 * storing the summary and acking it; pg-boss redelivers the job once it expires).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { PgBoss } from 'pg-boss';
import type { Message } from './broker.js';

const WORKER = path.join(import.meta.dirname, 'pg-boss-worker.ts');

export interface PgBossRunOptions {
  /** The PostgreSQL both the queue and the store live in. */
  readonly url: string;
  /** @default 200 */
  readonly messages?: number;
  /** Worker processes at a time. @default 2 */
  readonly workers?: number;
  /** Workers that SIGKILL themselves before an ack (each replaced by a new one). @default 2 */
  readonly crashes?: number;
  /** @default 0.3 */
  readonly ackLossRate?: number;
  /** The longest the run may take. @default 180_000 */
  readonly timeoutMs?: number;
}

/** What the run measured. */
export interface PgBossRunStats {
  readonly messages: number;
  /** Jobs handed to a worker, counting every redelivery. */
  readonly deliveries: number;
  readonly acksLost: number;
  readonly workersKilled: number;
  readonly modelCalls: number;
  /** The most distinct summaries published for one message (1: every redelivery published the same). */
  readonly mostSummariesForOneMessage: number;
  /** Jobs pg-boss holds as completed at the end. */
  readonly completed: number;
}

interface WorkerLine {
  readonly worker: string;
  readonly event: string;
  readonly id?: string;
  readonly summary?: string;
}

export async function runPgBossQueue(options: PgBossRunOptions): Promise<PgBossRunStats> {
  const { url, messages: count = 200, workers = 2, crashes = 2, ackLossRate = 0.3 } = options;
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  const run = Date.now().toString(36);
  const queue = `summaries-${run}`;
  // A job that is active this long without an ack (its worker died) is retried; the
  // supervisor looks every second.
  const boss = new PgBoss({ connectionString: url, superviseIntervalSeconds: 1, schedule: false });
  boss.on('error', () => {});
  await boss.start();
  const lines: WorkerLine[] = [];
  const children = new Set<ChildProcess>();
  let started = 0;

  const startWorker = (crashAt: number): void => {
    started += 1;
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        DATABASE_URL: url,
        QUEUE: queue,
        WORKER: `W${started}`,
        ACK_LOSS_RATE: String(ackLossRate),
        CRASH_AT_DELIVERY: String(crashAt),
      },
    });
    children.add(child);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) lines.push(JSON.parse(line) as WorkerLine);
    });
    child.once('exit', (_code, signal) => {
      children.delete(child);
      if (signal === 'SIGKILL' && Date.now() < deadline) startWorker(0); // a crashed worker is replaced
    });
  };

  try {
    await boss.createQueue(queue, { retryLimit: 50, retryDelay: 0, expireInSeconds: 2 });
    const messages: Message[] = Array.from({ length: count }, (_, i) => ({
      id: `order-${run}-${i + 1}`,
      text: `Order ${i + 1}: ${['two lamps', 'a chair', 'one desk'][i % 3]}, deliver on ${['Monday', 'Friday'][i % 2]}.`,
    }));
    await boss.insert(
      queue,
      messages.map((data) => ({ data })),
    );
    for (let index = 0; index < workers; index += 1) startWorker(index < crashes ? 4 + 5 * index : 0);

    // Bounded: until pg-boss holds every job completed, or the deadline.
    for (;;) {
      const jobs = await boss.findJobs(queue, { limit: count + 1 });
      const completed = jobs.filter((job) => job.state === 'completed').length;
      if (completed === count || Date.now() > deadline) {
        const summaries = new Map<string, Set<string>>();
        for (const { event, id = '', summary = '' } of lines) {
          if (event === 'published') summaries.set(id, (summaries.get(id) ?? new Set()).add(summary));
        }
        const counted = (name: string): number => lines.filter((line) => line.event === name).length;
        return {
          messages: count,
          deliveries: counted('delivery'),
          acksLost: counted('ack-lost'),
          workersKilled: counted('crash'),
          modelCalls: counted('model-call'),
          mostSummariesForOneMessage: Math.max(0, ...[...summaries.values()].map((set) => set.size)),
          completed,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await Promise.all(
      [...children].map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
          }),
      ),
    );
    await boss.deleteQueue(queue).catch(() => {});
    await boss.stop({ graceful: false, timeout: 1_000 }).catch(() => {});
  }
}
