/**
 * The headline guarantee under a lossy network: the server does the work, then the
 * response is lost (30 % of the time). With answer-once every intent is answered and the
 * work runs exactly once per intent; plain ky retrying POST runs it again on every loss.
 */

import { createClient } from 'answer-once';
import ky from 'ky';
import { describe, expect, it } from 'vitest';
import { createProtocolFake, ORIGIN, useMsw } from '../support/protocol-fake.js';
import { seeded } from '../support/seeded.js';

const server = await useMsw();

const INTENTS = 1_000;
const CONCURRENCY = 50;
const LOSS = 0.3;

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at a time. */
async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

describe('1,000 intents over a network that loses 30 % of responses after the work ran', () => {
  it('answers every intent with the work run exactly 1,000 times', async () => {
    const fake = createProtocolFake({ loseRate: LOSS, random: seeded(42), work: (body) => body });
    server.use(...fake.handlers);
    const client = createClient({ baseUrl: ORIGIN, retry: { limit: 20, delay: 1, random: seeded(7) } });
    const results = await pool(INTENTS, CONCURRENCY, (i) => client.send<{ n: number }>('chat', { json: { n: i } }));
    expect(results.map((r) => r.data.n)).toEqual(Array.from({ length: INTENTS }, (_, i) => i));
    expect(fake.stats.workRuns).toBe(INTENTS);
    expect(fake.stats.lost).toBeGreaterThan(INTENTS * 0.25); // the network really was lossy
    expect(results.filter((r) => r.replayed).length).toBeGreaterThan(INTENTS * 0.25);
  }, 30_000);

  it("with plain ky.post and retry.methods: ['post'] runs the work once more per lost response", async () => {
    const fake = createProtocolFake({ loseRate: LOSS, random: seeded(42), work: (body) => body });
    server.use(...fake.handlers);
    const plain = ky.create({ baseUrl: ORIGIN, retry: { limit: 20, methods: ['post'], delay: () => 0 } });
    const results = await pool(INTENTS, CONCURRENCY, (i) => plain.post('chat', { json: { n: i } }).json<{ n: number }>());
    expect(results).toHaveLength(INTENTS);
    expect(fake.stats.workRuns).toBeGreaterThan(INTENTS);
    expect(fake.stats.workRuns).toBe(INTENTS + fake.stats.lost);
  }, 30_000);
});
