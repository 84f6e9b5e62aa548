/**
 * The stream bench's rig: its rounds, intent IDs, the met/missed verdict, the handler over
 * a store and a model, and one throwaway redis-server on a loopback port with the
 * RedisStores made on it (test/support/redis-server.ts).
 */

import { RedisStore } from 'answer-once/redis';
import { createIdempotencyHandler, type IdempotencyStore } from 'answer-once/server';
import { createClient } from 'redis';
import { RedisServer } from '../test/support/redis-server.js';

export const ROUNDS = Number(process.env.STREAM_BENCH_ROUNDS ?? 5);
let serial = 0;
export const newId = (): string => `bench-stream-${process.pid}-${(serial += 1).toString().padStart(8, '0')}`;
const scope = () => ({ user: 'bench-user' });
export const verdict = (met: boolean): string => (met ? '**met**' : '**missed**');

export const redis = await RedisServer.start();
const clients: { close(): Promise<void> }[] = [];
const stores: RedisStore[] = [];
export async function redisStore(): Promise<RedisStore> {
  const client = await createClient({ url: redis.url })
    .on('error', () => {})
    .connect();
  clients.push(client);
  const store = new RedisStore({ client });
  stores.push(store);
  return store;
}

export type Work = (request: Request) => Response | Promise<Response>;
export function protect(store: IdempotencyStore, work: Work, flushMs = 25) {
  return createIdempotencyHandler({ store, scope, flushMs, handler: (request) => work(request) });
}

/** Closes every store and client the bench made, then the redis-server. */
export async function closeRedis(): Promise<void> {
  await Promise.all(stores.map((store) => store.close()));
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await redis.stop();
}
