/**
 * PostgresStore's listening connection, when it breaks: waiters are woken through NOTIFY
 * again once it is back — also on a loaded machine, where opening a connection takes
 * seconds, and when it breaks while it is being opened (then it is never trusted).
 */

import type { PostgresPool } from 'answer-once/postgres';
import { bytes, claimGeneration, held, text } from 'answer-once/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { requirePostgresServer } from '../support/postgres-server.js';
import { newKey, usePostgresSuite } from '../support/postgres-suite.js';
import { sleep } from '../support/sleep.js';

const hasPostgres = requirePostgresServer();
/** Polling a minute apart: a wake-up within seconds is a NOTIFY's (or the reconnection's). */
const POLL_MS = 60_000;

type Client = InstanceType<typeof pg.Client>;

/**
 * `pool`, whose listening connections (opened through its `Client`, or taken from it with
 * `connect`) take `delay()` longer to open and go through `tamper` before they are handed over.
 */
function tampered(pool: pg.Pool, { delay = async () => {}, tamper = () => {} }: Tampering): PostgresPool {
  class TamperedClient extends pg.Client {
    constructor(options: pg.ClientConfig) {
      super(options);
      const connect = this.connect.bind(this);
      Object.assign(this, {
        connect: async () => {
          await delay();
          return connect();
        },
      });
      tamper(this);
    }
  }
  return {
    query: (text, values) => pool.query(text, values),
    Client: TamperedClient as never,
    options: pool.options,
    connect: async () => {
      await delay();
      const client = await pool.connect();
      tamper(client);
      return client;
    },
  } as PostgresPool;
}

interface Tampering {
  readonly delay?: () => Promise<void>;
  readonly tamper?: (client: Client) => void;
}

describe.skipIf(!hasPostgres)('PostgresStore when its listening connection breaks', () => {
  const suite = usePostgresSuite();
  const killListening = async (): Promise<number> =>
    (await suite.pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")).rowCount ??
    0;

  it('wakes attached readers through NOTIFY again after it is killed, when a new connection takes 2.5 s to open (a loaded machine)', {
    timeout: 30_000,
  }, async () => {
    let slow = false;
    const pool = tampered(suite.pool, { delay: async () => (slow ? sleep(2_500) : undefined) });
    const store = suite.open({ pool, pollIntervalMs: POLL_MS });
    const writer = suite.open({ notifications: false });
    const key = newKey();
    const { token, generation } = await claimGeneration(writer, key, 60_000);
    await writer.append(key, token, { offset: 0, data: bytes('a'), head: 'h' });
    const readers = Array.from({ length: 4 }, () => store.read(key, { generation, offset: 1 }, { waitMs: 20_000 }));
    await sleep(300); // attached: the listening connection is up
    slow = true;
    expect(await killListening()).toBe(1);
    await sleep(500);
    await writer.append(key, token, { offset: 1, data: bytes('b') });
    const killedAt = Date.now();
    const slices = await Promise.all(readers);
    expect(slices.map(({ log }) => text(log?.data ?? new Uint8Array()))).toEqual(['b', 'b', 'b', 'b']);
    // Back after about 100 ms of backoff and 2.5 s of opening, not at the readers' deadline.
    expect(Date.now() - killedAt).toBeLessThan(5_000);

    // And woken by NOTIFY from then on.
    const next = store.read(key, { generation, offset: 2 }, { waitMs: 20_000 });
    await sleep(200);
    const appendedAt = Date.now();
    await writer.append(key, token, { offset: 2, data: bytes('c') });
    expect(text((await next).log?.data ?? new Uint8Array())).toBe('c');
    expect(Date.now() - appendedAt).toBeLessThan(1_000);
  });

  it('never trusts a listening connection that broke while it was opening, and wakes waiters through the next one', {
    timeout: 30_000,
  }, async () => {
    let sabotaged = 0;
    const pool = tampered(suite.pool, {
      tamper: (client) => {
        if (sabotaged > 0) return;
        sabotaged += 1;
        // The first one dies as its LISTEN is answered, before the store got the answer.
        const query = client.query.bind(client) as (text: string) => Promise<unknown>;
        Object.assign(client, {
          query: async (statement: string, ...rest: unknown[]) => {
            if (!statement.startsWith('LISTEN'))
              return (query as (...args: unknown[]) => Promise<unknown>)(statement, ...rest);
            const { rows } = (await query('SELECT pg_backend_pid() AS pid')) as { rows: { pid: number }[] };
            const answer = await query(statement);
            const ended = new Promise((resolve) => client.once('end', resolve));
            await suite.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
            await ended;
            return answer;
          },
        });
      },
    });
    const store = suite.open({ pool, pollIntervalMs: POLL_MS });
    const writer = suite.open({ notifications: false });
    const key = newKey();
    const holder = held(await writer.acquire(key, 'fp', 60_000));
    const waiting = store.wait(key, 20_000);
    await sleep(1_500);
    expect(sabotaged).toBe(1);
    const completedAt = Date.now();
    await writer.complete(key, holder.token, 'answer', 60_000);
    expect(await waiting).toMatchObject({ state: 'completed', result: 'answer' });
    expect(Date.now() - completedAt).toBeLessThan(1_000);
  });
});
