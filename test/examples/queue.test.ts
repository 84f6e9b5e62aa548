/**
 * The queue-consumer example (examples/queue): at-least-once delivery in, one model call
 * per message out — and, as the control, the same queue without runOnce.
 */

import { MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { deliverAtLeastOnce, type Message } from '../../examples/queue/broker.js';
import { createConsumer, type Summary } from '../../examples/queue/consumer.js';
import { seeded } from '../support/seeded.js';

const MESSAGES: Message[] = Array.from({ length: 150 }, (_, i) => ({ id: `order-${i}`, text: `order ${i}` }));
const QUEUE = { ackLossRate: 0.3, visibilityMs: 20, random: seeded(11) };

function slowModel() {
  const random = seeded(5);
  let calls = 0;
  return {
    calls: () => calls,
    summarise: async (text: string) => {
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, random() * 40)); // some outlast the visibility timeout
      return `summary ${calls} of ${text}`;
    },
  };
}

describe('examples/queue: a consumer keyed by the message ID', () => {
  it('calls the model once per message however often the queue redelivers it', async () => {
    const model = slowModel();
    const published = new Map<string, Set<string>>();
    const publish = ({ messageId, summary }: Summary) =>
      published.set(messageId, (published.get(messageId) ?? new Set()).add(summary));
    const store = new MemoryStore();
    const workers = [createConsumer(store, model.summarise, publish), createConsumer(store, model.summarise, publish)];

    const stats = await deliverAtLeastOnce(MESSAGES, workers, QUEUE);

    expect(stats.deliveries).toBeGreaterThan(MESSAGES.length * 1.2); // the queue really redelivered
    expect(model.calls()).toBe(MESSAGES.length);
    expect(published.size).toBe(MESSAGES.length);
    for (const summaries of published.values()) expect(summaries.size).toBe(1);
  });

  it('(control) calls the model on every delivery without it', async () => {
    const model = slowModel();
    const consume = async (message: Message) => void (await model.summarise(message.text));

    const stats = await deliverAtLeastOnce(MESSAGES, [consume, consume], QUEUE);

    expect(model.calls()).toBe(stats.deliveries);
    expect(model.calls()).toBeGreaterThan(MESSAGES.length * 1.2);
  });
});
