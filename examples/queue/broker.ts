/**
 * A tiny in-memory queue with at-least-once delivery, the way SQS, RabbitMQ or Kafka
 * consumers see it: a message is redelivered when its ack is lost, and when its consumer
 * takes longer than the visibility timeout — even while that consumer is still working.
 */
export interface Message {
  /** The business ID: stable across redeliveries (an order ID, a chat turn ID). */
  readonly id: string;
  readonly text: string;
}

export interface BrokerOptions {
  /** Share of acks lost on the way back (the message is delivered again). */
  readonly ackLossRate: number;
  /** A message not acked within this many ms becomes visible again. */
  readonly visibilityMs: number;
  /** Random source in [0, 1). */
  readonly random: () => number;
}

export interface BrokerStats {
  deliveries: number;
  redeliveries: number;
}

/**
 * Delivers every message at least once to `consumers` (each pulls one message at a time)
 * until each has been acked; resolves with delivery counts. Bounded: gives up after ten
 * deliveries per message.
 */
export async function deliverAtLeastOnce(
  messages: readonly Message[],
  consumers: readonly ((message: Message) => Promise<void>)[],
  options: BrokerOptions,
): Promise<BrokerStats> {
  const stats: BrokerStats = { deliveries: 0, redeliveries: 0 };
  const visible: Message[] = [...messages];
  const acked = new Set<string>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const limit = messages.length * 10;

  function redeliverLater(message: Message, ms: number): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!acked.has(message.id)) visible.push(message);
    }, ms);
    timers.add(timer);
  }

  async function pull(consume: (message: Message) => Promise<void>): Promise<void> {
    while (acked.size < messages.length) {
      if (stats.deliveries >= limit) throw new Error(`broker: gave up after ${limit} deliveries`);
      const message = visible.shift();
      if (message === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      stats.deliveries += 1;
      if (stats.deliveries > messages.length) stats.redeliveries += 1;
      redeliverLater(message, options.visibilityMs); // visibility timeout
      try {
        await consume(message);
      } catch {
        continue; // not acked: the visibility timeout brings it back
      }
      if (options.random() < options.ackLossRate) continue; // the ack got lost
      acked.add(message.id);
    }
  }

  try {
    await Promise.all(consumers.map(pull));
  } finally {
    for (const timer of timers) clearTimeout(timer);
  }
  return stats;
}
