/**
 * The rig of the `LogBatcher` specs: a store that records every append and answers each as
 * told, and a batcher over it with short flush windows (fake timers: the specs' own hooks).
 */

import type { LogAppend, LogAppendResult, StreamStore } from 'answer-once/server';
import { expect, vi } from 'vitest';
import { type BatcherContext, LogBatcher } from '../../src/server/stream/log-batcher.js';
import { useFakeClock } from './fake-clock.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const FLUSH_MS = 25;
export const HEAD = '{"v":1,"status":200,"headers":[]}';
const START = 1_000_000;

/** How the store answers one append: a result, a throw, or an answer that lands when told. */
export type Answer = LogAppendResult | Error | Promise<LogAppendResult>;

interface Seen {
  readonly offset: number;
  readonly text: string;
  readonly head: string | undefined;
  readonly at: number;
}

/** A log that records every append; `answers` (in order) say how appends go, ok once they run out. */
export function recordingLog(answers: Answer[] = []) {
  const appends: Seen[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const store = {
    append: async (_key: string, _token: string, batch: LogAppend): Promise<LogAppendResult> => {
      appends.push({ offset: batch.offset, text: decoder.decode(batch.data), head: batch.head, at: Date.now() - START });
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        const answer = answers.shift() ?? { ok: true, length: batch.offset + batch.data.byteLength, stopRequested: false };
        if (answer instanceof Error) throw answer;
        return await answer;
      } finally {
        inFlight -= 1;
      }
    },
  } as unknown as StreamStore;
  return { store, appends, mostInFlight: () => mostInFlight };
}

/** An answer that lands when `land` is called. */
export function held() {
  let land!: (result: LogAppendResult) => void;
  const answer = new Promise<LogAppendResult>((resolve) => (land = resolve));
  return { answer, land };
}

export const ok = (length: number, stopRequested = false): LogAppendResult => ({ ok: true, length, stopRequested });

export function batcherFor(store: StreamStore, overrides: Partial<BatcherContext> = {}) {
  const context: BatcherContext = {
    store,
    key: 'key',
    token: 'token',
    flushMs: FLUSH_MS,
    flushBytes: 65_536,
    report: vi.fn(),
    onStop: vi.fn(),
    onFenced: vi.fn(),
    leaseMs: 30_000,
    onRenewed: vi.fn(),
    onLost: vi.fn(),
    ...overrides,
  };
  const batcher = new LogBatcher(context, HEAD, Date.now());
  return { batcher, context };
}

export const bytes = (text: string) => encoder.encode(text);

/** A batcher whose head's append has landed, `FLUSH_MS` after the start. */
export async function headLogged(answers: Answer[] = [], overrides: Partial<BatcherContext> = {}) {
  const log = recordingLog(answers);
  const { batcher, context } = batcherFor(log.store, overrides);
  batcher.schedule();
  await vi.advanceTimersByTimeAsync(FLUSH_MS);
  expect(log.appends).toEqual([{ offset: 0, text: '', head: HEAD, at: FLUSH_MS }]);
  return { ...log, batcher, context };
}

/** Fake timers from `START` for every spec of the calling file. */
export function useBatcherClock(): void {
  useFakeClock({ now: START });
}
