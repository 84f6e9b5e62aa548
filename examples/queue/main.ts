/**
 * `npm run example:queue`: 200 messages through a queue that loses 30 % of acks and
 * redelivers slow messages, consumed by two workers sharing one store. Prints how many
 * deliveries there were and how many model calls they cost.
 *
 * Options (env): MESSAGES (200), REDIS_URL (share a RedisStore instead of a MemoryStore).
 */
import { type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { deliverAtLeastOnce, type Message } from './broker.js';
import { createConsumer, type Summary } from './consumer.js';

async function openStore(): Promise<{ store: IdempotencyStore; close: () => Promise<void> }> {
  const url = process.env.REDIS_URL;
  if (!url) return { store: new MemoryStore(), close: async () => {} };
  const [{ createClient }, { RedisStore }] = await Promise.all([import('redis'), import('answer-once/redis')]);
  const client = await createClient({ url })
    .on('error', (error) => console.error('redis:', error))
    .connect();
  const store = new RedisStore({ client });
  return {
    store,
    close: async () => {
      await store.close();
      client.destroy();
    },
  };
}

const count = Number(process.env.MESSAGES ?? 200);
if (!Number.isInteger(count) || count < 1 || count > 100_000) {
  throw new TypeError('MESSAGES must be a whole number from 1 to 100000.');
}
const messages: Message[] = Array.from({ length: count }, (_, i) => ({
  id: `order-${i + 1}`,
  text: `Order ${i + 1}: ${['two lamps', 'a chair', 'one desk'][i % 3]}, deliver on ${['Monday', 'Friday'][i % 2]}.`,
}));

let modelCalls = 0;
const summarise = async (text: string): Promise<string> => {
  modelCalls += 1;
  await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60)); // the model thinks
  return `summary #${modelCalls}: ${text.slice(0, 24)}…`;
};

const published = new Map<string, Set<string>>();
const publish = ({ messageId, summary }: Summary) => {
  published.set(messageId, (published.get(messageId) ?? new Set()).add(summary));
};

const { store, close } = await openStore();
try {
  const workers = [createConsumer(store, summarise, publish), createConsumer(store, summarise, publish)];
  const stats = await deliverAtLeastOnce(messages, workers, { ackLossRate: 0.3, visibilityMs: 40, random: Math.random });
  const distinct = Math.max(...[...published.values()].map((summaries) => summaries.size));
  console.table({
    messages: count,
    deliveries: stats.deliveries,
    redeliveries: stats.redeliveries,
    'model calls': modelCalls,
    'most distinct summaries for one message': distinct,
  });
} finally {
  await close();
}
