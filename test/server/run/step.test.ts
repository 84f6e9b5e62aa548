/**
 * `ctx.step` in `runOnce`: every step of an intent runs once across its runs — a re-run
 * (after a failure, a crash inside the work, a takeover) gets each finished step's recorded
 * outcome without calling it, and a step whose outcome is unknown is never silently re-run.
 */
import { createHash } from 'node:crypto';
import {
  type IdempotencyEvent,
  type IdempotencyStore,
  LeaseLostError,
  MemoryStore,
  type RunContext,
  type RunOnceOptions,
  runOnce,
  StepOutcomeTooLargeError,
  StepUncertainError,
} from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { untilAborted, viewOf } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const KEY_SYNTAX = /^[A-Za-z0-9_-]{43}$/;

/** A listener and the step events it heard. */
function stepEvents(): { steps: IdempotencyEvent[]; onEvent: (event: IdempotencyEvent) => void } {
  const steps: IdempotencyEvent[] = [];
  return { steps, onEvent: (event) => event.type === 'step' && steps.push(event) };
}

/** Runs `work` for `key`, and answers what became of it: its value, or what it threw. */
async function attempt<T>(
  store: IdempotencyStore,
  work: (context: RunContext) => Promise<T>,
  options?: RunOnceOptions<T>,
  key = 'k',
): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: (await runOnce(store, key, work, { maxRuns: 10, ...options })).value };
  } catch (error) {
    return { error };
  }
}

/**
 * A step's function that dies inside its first run (it waits for the run's end past
 * maxRunMs) and returns `value` on the next; `keys` gets the step key of every run.
 */
const diesOnce =
  <T>(keys: string[], value: T) =>
  ({ key, signal }: { key: string; signal: AbortSignal }): Promise<T> | T => {
    keys.push(key);
    return keys.length === 1 ? untilAborted(signal) : value;
  };

describe('ctx.step in runOnce', () => {
  it('runs a step once: a run again after a failure gets its recorded value without calling it', async () => {
    const store = new MemoryStore();
    const calls: string[] = [];
    let crash = true;
    const work = async ({ step }: RunContext) => {
      const charge = await step('charge', async ({ key }) => {
        calls.push(key);
        return { id: 'ch_1', amount: 500 };
      });
      if (crash) throw new Error('crashed after the charge');
      return charge;
    };
    expect((await attempt(store, work)).error).toMatchObject({ message: 'crashed after the charge' });
    crash = false;
    expect((await attempt(store, work)).value).toEqual({ id: 'ch_1', amount: 500 });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(KEY_SYNTAX);
  });

  it('tells steps apart by name and occurrence, with a key per step that every run derives the same', async () => {
    const store = new MemoryStore();
    const keys: string[][] = [[], []];
    let run = 0;
    const work = async ({ step }: RunContext) => {
      const found: string[] = [];
      for (const query of ['a', 'b', 'c']) {
        found.push(await step('search', async ({ key }) => ((keys[run] as string[]).push(key), `${query}:${run}`)));
      }
      if (run++ === 0) throw new Error('crash');
      return found;
    };
    await attempt(store, work);
    // The second run called no step: each is answered from the journal, in order.
    expect((await attempt(store, work)).value).toEqual(['a:0', 'b:0', 'c:0']);
    expect(new Set(keys[0]).size).toBe(3);
    expect(keys[1]).toEqual([]);
    // The keys are derived from intent + step: the same for the intent anywhere, another for another intent.
    const again: string[] = [];
    const other: string[] = [];
    await attempt(new MemoryStore(), async ({ step }) => step('search', ({ key }) => again.push(key)));
    await attempt(new MemoryStore(), async ({ step }) => step('search', ({ key }) => other.push(key)), {}, 'k2');
    expect(again).toEqual([keys[0]?.[0]]);
    expect(other[0]).toMatch(KEY_SYNTAX);
    expect(other[0]).not.toBe(keys[0]?.[0]);
  });

  it('derives each step key as PROTOCOL.md § 15.2 states: base64url SHA-256 of intent key, name and occurrence', async () => {
    const keys: string[] = [];
    await attempt(new MemoryStore(), async ({ step }) => {
      await step('charge', ({ key }) => keys.push(key));
      await step('charge', ({ key }) => keys.push(key));
    });
    const expected = (occurrence: number) =>
      createHash('sha256').update(`answer-once/step@1\nk\ncharge\n${occurrence}`).digest('base64url');
    expect(keys).toEqual([expected(1), expected(2)]);
  });

  it("records a step's error and rethrows it on replay with its name and message, without calling the step", async () => {
    class DeclinedError extends Error {
      override name = 'DeclinedError';
    }
    const store = new MemoryStore();
    let calls = 0;
    const thrown: unknown[] = [];
    const work = async ({ step }: RunContext) => {
      try {
        await step('charge', () => {
          calls += 1;
          throw new DeclinedError('card declined');
        });
      } catch (error) {
        thrown.push(error);
      }
      throw new Error('the run fails after');
    };
    await attempt(store, work);
    await attempt(store, work);
    expect(calls).toBe(1);
    expect(thrown[0]).toBeInstanceOf(DeclinedError);
    expect(thrown[1]).toMatchObject({ name: 'DeclinedError', message: 'card declined' });
  });

  it('gives every run the value as JSON keeps it, the first run too', async () => {
    const store = new MemoryStore();
    const seen: unknown[] = [];
    const work = async ({ step }: RunContext) => {
      seen.push(await step('when', () => ({ at: new Date(0), skipped: undefined })));
      throw new Error('again');
    };
    await attempt(store, work);
    await attempt(store, work);
    expect(seen).toEqual([{ at: '1970-01-01T00:00:00.000Z' }, { at: '1970-01-01T00:00:00.000Z' }]);
  });

  it('never silently runs again a step cut by the end of its run: the next run gets StepUncertainError', async () => {
    const store = new MemoryStore();
    const { steps, onEvent } = stepEvents();
    let calls = 0;
    const work = async ({ step }: RunContext) =>
      step('send-email', ({ signal }) => {
        calls += 1;
        // The first run dies inside the step (its run ends past maxRunMs).
        return untilAborted(signal);
      });
    await attempt(store, work, { maxRunMs: 50, onEvent });
    const { error } = await attempt(store, work, { onEvent });
    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(StepUncertainError);
    expect(error).toMatchObject({ step: 'send-email', stepKey: expect.stringMatching(KEY_SYNTAX) });
    expect(steps.map((event) => event.type === 'step' && event.outcome)).toEqual(['ran', 'uncertain']);
  });

  it('runs a step safe to repeat again, with the same key, when its outcome is unknown', async () => {
    const store = new MemoryStore();
    const keys: string[] = [];
    const work = async ({ step }: RunContext) => step('refund', diesOnce(keys, 'refunded'), { repeat: 'safe' });
    await attempt(store, work, { maxRunMs: 50 });
    expect((await attempt(store, work)).value).toBe('refunded');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it("does not record a safe step's error: the next run tries it again", async () => {
    const store = new MemoryStore();
    let calls = 0;
    const work = async ({ step }: RunContext) =>
      step(
        'fetch-weather',
        () => {
          calls += 1;
          if (calls === 1) throw new Error('503 from the weather API');
          return 'sunny';
        },
        { repeat: 'safe' },
      );
    expect((await attempt(store, work)).error).toMatchObject({ message: '503 from the weather API' });
    expect((await attempt(store, work)).value).toBe('sunny');
    expect(calls).toBe(2);
  });

  it('lets reconcile decide an uncertain step: found done is recorded and returned, not done runs it with the same key', async () => {
    for (const done of [true, false]) {
      const store = new MemoryStore();
      const { steps, onEvent } = stepEvents();
      const keys: string[] = [];
      const lookups: string[] = [];
      const work = async ({ step }: RunContext) =>
        step('charge', diesOnce(keys, 'charged here'), {
          reconcile: ({ key }) => {
            lookups.push(key);
            return done ? { done: true, value: 'found by key' } : { done: false };
          },
        });
      await attempt(store, work, { maxRunMs: 50 });
      expect((await attempt(store, work, { onEvent })).value).toBe(done ? 'found by key' : 'charged here');
      expect(lookups).toEqual([keys[0]]);
      expect(keys).toHaveLength(done ? 1 : 2);
      expect(steps.map((event) => event.type === 'step' && event.outcome)).toEqual([
        'uncertain',
        done ? 'reconciled' : 'ran',
      ]);
    }
  });

  it("fences a run that lost its lease: its step's outcome is not recorded, and the successor finds it uncertain", async () => {
    const memory = new MemoryStore();
    // Renewals that never extend the lease: the first run's lease lapses while its step runs.
    const store = viewOf(memory, { renew: async () => 'written' as const });
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const work = async ({ step }: RunContext) =>
      step('charge', async () => {
        calls += 1;
        if (calls === 1) await gate;
        return 'charged';
      });
    const zombie = attempt(store, work, { leaseMs: 100, heartbeatMs: 30 });
    await sleep(200);
    const successor = await attempt(store, work);
    release();
    expect((await zombie).error).toBeInstanceOf(LeaseLostError);
    expect(successor.error).toBeInstanceOf(StepUncertainError);
    // The zombie's step ended after it lost the intent: its outcome was fenced, not recorded.
    expect((await attempt(store, work)).error).toBeInstanceOf(StepUncertainError);
    expect(calls).toBe(1);
  });

  it('refuses an outcome over maxStepBytes with StepOutcomeTooLargeError, and the next run finds the step uncertain', async () => {
    const store = new MemoryStore();
    const work = async ({ step }: RunContext) => step('big', () => 'x'.repeat(2_000));
    const first = await attempt(store, work, { maxStepBytes: 1_000 });
    expect(first.error).toBeInstanceOf(StepOutcomeTooLargeError);
    expect(first.error).toMatchObject({ step: 'big', maxStepBytes: 1_000, bytes: 2_008 });
    expect((await attempt(store, work, { maxStepBytes: 1_000 })).error).toBeInstanceOf(StepUncertainError);
  });

  it('refuses a value that is not JSON with a TypeError naming the step, and records nothing for it', async () => {
    const store = new MemoryStore();
    const work = async ({ step }: RunContext) => step('count', () => 10n);
    const { error } = await attempt(store, work);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/step "count" is not JSON/);
    expect((await attempt(store, work)).error).toBeInstanceOf(StepUncertainError);
  });

  it('keeps the usage a step reports, and reports it as avoided when the step is replayed', async () => {
    const store = new MemoryStore();
    const { steps, onEvent } = stepEvents();
    let crash = true;
    const work = async ({ step }: RunContext) => {
      await step(
        'model',
        ({ reportUsage }) => {
          reportUsage({ inputTokens: 12, outputTokens: 7 });
          return 'text';
        },
        { kind: 'model' },
      );
      await step('tool', () => 'result', { kind: 'tool' });
      if (crash) throw new Error('crash');
      return 'done';
    };
    await attempt(store, work, { onEvent });
    crash = false;
    await attempt(store, work, { onEvent });
    expect(steps).toEqual([
      expect.objectContaining({ step: 'model', kind: 'model', outcome: 'ran', usage: { inputTokens: 12, outputTokens: 7 } }),
      expect.objectContaining({ step: 'tool', kind: 'tool', outcome: 'ran' }),
      expect.objectContaining({
        step: 'model',
        kind: 'model',
        outcome: 'replayed',
        usage: { inputTokens: 12, outputTokens: 7 },
      }),
      expect.objectContaining({ step: 'tool', kind: 'tool', outcome: 'replayed' }),
    ]);
    // A step that reported no usage says nothing of it (unknown), never 0.
    expect(steps[1]).not.toHaveProperty('usage');
  });

  it('refuses a bad step name or option with a TypeError naming the problem, before running anything', async () => {
    const cases: [unknown, unknown, RegExp][] = [
      ['', undefined, /name must not be empty/],
      [42, undefined, /name must be a string, got number/],
      ['x'.repeat(129), undefined, /at most 128 characters, got 129/],
      ['a\nb', undefined, /must not contain control characters/],
      ['ok', { repeat: 'always' }, /`repeat` must be 'never' or 'safe'/],
      ['ok', { kind: 'user 42' }, /`kind` must be a label/],
      ['ok', { reconcile: 'yes' }, /`reconcile` must be a function/],
    ];
    for (const [name, options, message] of cases) {
      let calls = 0;
      const { error } = await attempt(new MemoryStore(), async ({ step }) =>
        step(name as string, () => ++calls, options as never),
      );
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(message);
      expect(calls).toBe(0);
    }
  });

  it('refuses to run a step on a store without a step journal, naming the store', async () => {
    const memory = new MemoryStore();
    class LedgerStore implements IdempotencyStore {
      acquire = memory.acquire.bind(memory);
      renew = memory.renew.bind(memory);
      complete = memory.complete.bind(memory);
      fail = memory.fail.bind(memory);
      get = memory.get.bind(memory);
      wait = memory.wait.bind(memory);
    }
    let calls = 0;
    const { error } = await attempt(new LedgerStore(), async ({ step }) => step('charge', () => ++calls));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/LedgerStore does not/);
    expect(calls).toBe(0);
  });
});

describe('ctx.beginStep in runOnce', () => {
  it('records an outcome finished later, and answers it to the next run as recorded, without an open step', async () => {
    const store = new MemoryStore();
    const begun: string[] = [];
    const work = async ({ beginStep }: RunContext) => {
      const step = await beginStep('model', { kind: 'model' });
      begun.push(step.state);
      if (step.state === 'open') {
        // The outcome is known only once the stream has ended.
        await step.finish({ ok: true, value: 'streamed text', usage: { outputTokens: 5 } });
        throw new Error('crash after the step');
      }
      return step.state === 'recorded' && step.outcome;
    };
    await attempt(store, work);
    expect((await attempt(store, work)).value).toEqual({ ok: true, value: 'streamed text', usage: { outputTokens: 5 } });
    expect(begun).toEqual(['open', 'recorded']);
  });

  it('finishes a step once: a second finish throws a TypeError and the first outcome stands', async () => {
    const store = new MemoryStore();
    const work = async ({ beginStep }: RunContext) => {
      const step = await beginStep('model');
      if (step.state !== 'open') return step.state === 'recorded' && step.outcome;
      await step.finish({ ok: true, value: 'first' });
      await expect(step.finish({ ok: true, value: 'second' })).rejects.toThrow(/"model" was already finished/);
      throw new Error('crash');
    };
    await attempt(store, work);
    expect((await attempt(store, work)).value).toEqual({ ok: true, value: 'first' });
  });
});
