/**
 * Chaos: a model that breaks mid-answer on every run, behind the reference server, read
 * by `client.fetch` with a resumable body. Whatever the client's retries do, the server's
 * run bound (PROTOCOL.md § 5.7) ends it: each intent's model runs at most `maxRuns` (3)
 * times, each reader ends — with an answer or a final error — in bounded time, and no
 * generation's text reaches a reader twice.
 */

import { createClient, streaming } from 'answer-once';
import { createIdempotencyHandler } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { describe, expect, it } from 'vitest';
import { sseAnswer } from '../support/stream-support.js';

const INTENTS = 8;
const MAX_RUNS = 3;

/** A flaky provider: two events, then the model's connection breaks — on every run. */
const breaksMidAnswer = (): Response => sseAnswer(2, { breakAfter: 2, delayMs: 2 });

/** The data of each event a reader got, one list per generation (a restart marker starts the next). */
function generationsOf(text: string): string[][] {
  const generations: string[][] = [[]];
  for (const block of text.split('\n\n')) {
    if (block.includes('event: answer-once.restart')) generations.push([]);
    else for (const line of block.split('\n')) if (line.startsWith('data: ')) generations.at(-1)!.push(line.slice(6));
  }
  return generations;
}

describe('chaos: a model that fails mid-answer on every run', () => {
  it('runs each intent’s model at most maxRuns times; every reader ends in bounded time; no text twice', async () => {
    const runs = new Map<string, number>();
    const server = await serve(
      createIdempotencyHandler({
        scope: () => ({ user: 'u' }),
        handler: (_request, { requestId }) => {
          runs.set(requestId, (runs.get(requestId) ?? 0) + 1);
          return breaksMidAnswer();
        },
      }),
    );
    try {
      const client = createClient({ streaming, retry: { limit: 3, delay: 5 }, totalTimeout: 3_000 });
      const started = Date.now();
      const readers = await Promise.all(
        Array.from({ length: INTENTS }, async () => {
          const chunks: string[] = [];
          try {
            const response = await client.fetch(`${server.url}/api/chat`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"q":"tell me"}',
            });
            const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
            for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
            return { text: chunks.join(''), error: undefined, endedAt: Date.now() };
          } catch (error) {
            return { text: chunks.join(''), error, endedAt: Date.now() };
          }
        }),
      );
      expect(runs.size).toBe(INTENTS);
      for (const count of runs.values()) expect(count).toBeLessThanOrEqual(MAX_RUNS);
      for (const { text, error, endedAt } of readers) {
        expect(error).toMatchObject({ status: 409, problem: { code: 'intent-exhausted' }, retryable: false });
        expect(endedAt - started).toBeLessThan(10_000);
        for (const generation of generationsOf(text)) expect(new Set(generation).size).toBe(generation.length);
      }
    } finally {
      await server.close();
    }
  });
});
