/**
 * The point of this example: a queue consumer that makes at-least-once delivery cost
 * exactly one model call per message, with `runOnce` keyed by the message's business ID.
 */
import { type IdempotencyStore, runOnce } from 'answer-once/server';
import type { Message } from './broker.js';

export interface Summary {
  readonly messageId: string;
  readonly summary: string;
}

/** Model calls are what cost money; `summarise` stands for one. */
export type Summarise = (text: string, signal: AbortSignal) => Promise<string>;

/**
 * A consumer for one worker. Every worker shares `store`, so a redelivery that lands on
 * another worker replays the stored summary — or waits for the worker still writing it.
 */
export function createConsumer(
  store: IdempotencyStore,
  summarise: Summarise,
  publish: (summary: Summary, replayed: boolean) => void,
): (message: Message) => Promise<void> {
  return async function consume(message) {
    const { value, replayed } = await runOnce<Summary>(
      store,
      `summaries:{${message.id}}`,
      async ({ signal }) => ({ messageId: message.id, summary: await summarise(message.text, signal) }),
      { leaseMs: 2_000 },
    );
    publish(value, replayed); // downstream gets the same summary on every redelivery
  };
}
