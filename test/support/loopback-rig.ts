/**
 * What every SDK spec stands on: the reference `createIdempotencyHandler` (over
 * `MemoryStore`, which keeps answer logs, § 14.9) served on 127.0.0.1, behind a cutting
 * front (./cutting-front.ts) that destroys chosen answers' sockets mid-body. `calls()`
 * counts the runs of `work`: the model calls.
 *
 *   const rig = loopbackRigs(); // in the spec file: every rig it starts closes after each spec
 *   const server = await rig(async (request) => sseResponse(events), { cuts: [6] });
 */

import { createIdempotencyHandler, type IdempotentRouteHandler } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { afterEach } from 'vitest';
import { type CuttingFront, startCuttingFront } from './cutting-front.js';

interface LoopbackRig extends CuttingFront {
  /** Runs of the work so far: model calls. */
  calls(): number;
}

export interface LoopbackRigOptions {
  /** The n-th answer with a body is cut after `cuts[n]` SSE events (or bytes). */
  readonly cuts?: readonly (number | undefined)[];
}

export async function startLoopbackRig(work: IdempotentRouteHandler, options: LoopbackRigOptions = {}) {
  let calls = 0;
  const origin = await serve(
    createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: (request, context) => {
        calls += 1;
        return work(request, context);
      },
    }),
  );
  const front = await startCuttingFront(origin.url, options.cuts ?? []);
  return {
    ...front,
    calls: () => calls,
    async close() {
      await front.close();
      await origin.close();
    },
  } satisfies LoopbackRig;
}

/** A `startLoopbackRig` for one spec file: the rigs it starts are closed after each spec. */
export function loopbackRigs(): typeof startLoopbackRig {
  const open: LoopbackRig[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((rig) => rig.close()));
  });
  return async (work, options) => {
    const rig = await startLoopbackRig(work, options);
    open.push(rig);
    return rig;
  };
}
