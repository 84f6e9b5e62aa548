/**
 * The handler's `waitUntil` takes each runtime's own function as it is, and `handle`
 * takes a Workers `ctx` whole. Checked by vitest's typecheck (tsc); nothing runs.
 */
import { waitUntil } from '@vercel/functions';
import { createIdempotencyHandler, type HandleOptions, type IdempotencyHandlerOptions } from 'answer-once/server';
import { after } from 'next/server';
import { describe, expectTypeOf, it } from 'vitest';

/** The part of Cloudflare's `ExecutionContext` (workers-types) a handler sees. */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  readonly props: unknown;
}

describe('waitUntil', () => {
  it("accepts Next.js's after and @vercel/functions' waitUntil as the option", () => {
    expectTypeOf(after).toExtend<NonNullable<IdempotencyHandlerOptions['waitUntil']>>();
    expectTypeOf(waitUntil).toExtend<NonNullable<IdempotencyHandlerOptions['waitUntil']>>();
  });

  it("accepts a Workers ctx as handle's per-request options", () => {
    expectTypeOf<ExecutionContext>().toExtend<HandleOptions>();
    const handle = createIdempotencyHandler({ scope: () => ({ user: 'u', session: 's' }), handler: () => new Response() });
    expectTypeOf(handle).parameter(1).toEqualTypeOf<HandleOptions | undefined>();
  });
});
