/**
 * `ctx.step` is typed by its `fn`: the value it resolves to, and the value a `reconcile`
 * must give. Checked by vitest's typecheck (tsc); nothing runs.
 */

import type { BegunStep, HandlerContext, RunContext, StepContext } from 'answer-once/server';
import { describe, expectTypeOf, it } from 'vitest';

declare const ctx: HandlerContext;
declare const run: RunContext;

describe('ctx.step', () => {
  it("resolves to its fn's value, awaited, in the handler and in runOnce alike", () => {
    expectTypeOf(ctx.step('charge', async () => ({ id: 'ch_1' }))).toEqualTypeOf<Promise<{ id: string }>>();
    expectTypeOf(run.step('count', () => 3)).toEqualTypeOf<Promise<number>>();
    ctx.step('charge', (step) => expectTypeOf(step).toEqualTypeOf<StepContext>());
  });

  it("asks reconcile for a value of the step's own type", () => {
    ctx.step('charge', async () => ({ id: 'ch_1' }), { reconcile: async () => ({ done: true, value: { id: 'ch_2' } }) });
    // @ts-expect-error: a reconciled value of another type
    ctx.step('charge', async () => ({ id: 'ch_1' }), { reconcile: () => ({ done: true, value: 42 }) });
    // @ts-expect-error: repeat is 'never' or 'safe'
    ctx.step('charge', () => 1, { repeat: 'always' });
  });

  it('begins a step in two phases', () => {
    expectTypeOf(ctx.beginStep('model', { kind: 'model' })).toEqualTypeOf<Promise<BegunStep>>();
  });
});
