/**
 * What an attempt makes of its work's answer (PROTOCOL.md § 7): a 5xx or 408/425/429 is
 * a failed attempt (its body dropped, its `Retry-After` passed on only when sent), a
 * zombie's late answer yields to its successor's, and the headers say which generation
 * answered. Events name the store call that failed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { chatApp, chatRequest, gate, recordOps, until } from './server-support.js';

const ID = 'req-0000000001';
const T0 = 1_000_000;
const LEASE = 20;

/** `store` with some calls replaced; it keeps its answer logs if it has them. */
function viewOf<S extends IdempotencyStore>(store: S, overrides: Partial<IdempotencyStore>): S {
  return new Proxy(store, {
    get(target, property) {
      if (property in overrides) return overrides[property as keyof IdempotencyStore];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const refused = () => Promise.reject(new Error('ECONNRESET'));

const kinds = [
  { kind: 'a log-keeping store', view: (store: MemoryStore, o: Partial<IdempotencyStore> = {}) => viewOf(store, o) },
  { kind: 'a store without logs', view: (store: MemoryStore, o: Partial<IdempotencyStore> = {}) => recordOps(store, o) },
] as const;

afterEach(() => {
  vi.useRealTimers();
});

describe.each(kinds)('an attempt’s failed answer on $kind', ({ view }) => {
  it('answers a locked body as a broken attempt (502) that a resend runs again', async () => {
    const app = chatApp({
      store: view(new MemoryStore()),
      work: (call) => {
        if (call.context.retry) return undefined;
        const locked = new Response('half an answer');
        locked.body?.getReader(); // the app kept a reader on it
        return locked;
      },
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(502);
    expect(await first.json()).toMatchObject({ code: 'intent-failed', requestId: ID });
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'failed' }));

    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(200);
    expect(app.calls.map((call) => call.context.retry)).toEqual([false, true]);
  });
});
