/**
 * The idempotency store the demo runs on: in memory by default; with `REDIS_URL` set,
 * `answer-once/redis` over node-redis (both imported only then, so the demo runs
 * without Redis installed or reachable).
 */
import { type IdempotencyStore, MemoryStore } from 'answer-once/server';

export interface DemoStore {
  readonly store: IdempotencyStore;
  /** What the banner prints, e.g. `memory` or `redis redis://127.0.0.1:6379`. */
  readonly label: string;
  close(): Promise<void>;
}

export async function openStore(redisUrl: string | undefined): Promise<DemoStore> {
  if (!redisUrl) {
    const store = new MemoryStore();
    return { store, label: 'memory', close: async () => store.close?.() };
  }
  const [{ createClient }, { RedisStore }] = await Promise.all([import('redis'), import('answer-once/redis')]);
  const client = createClient({ url: redisUrl });
  client.on('error', (error: unknown) => console.error('redis:', error));
  await client.connect();
  const store = new RedisStore({ client });
  return {
    store,
    label: `redis ${new URL(redisUrl).host}`,
    async close() {
      await store.close();
      await client.close();
    },
  };
}
