import { createIdempotencyHandler, type IdempotencyHandlerOptions } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { normalizeHandlerOptions } from '../../../src/server/http/handler-options.js';
import { normalizeLeaseOptions } from '../../../src/server/run/lease-options.js';

const base: IdempotencyHandlerOptions = { scope: () => ({ user: 'u' }), handler: () => new Response() };
const create = (options: Record<string, unknown>) =>
  createIdempotencyHandler({ ...base, ...options } as IdempotencyHandlerOptions);

describe('createIdempotencyHandler: every bad option is refused by name', () => {
  it('refuses replayHeaders that is not a list of header names', () => {
    expect(() => create({ replayHeaders: 'content-type' })).toThrow(/`replayHeaders`/);
    expect(() => create({ replayHeaders: ['content-type', 3] })).toThrow(/`replayHeaders`/);
    expect(() => create({ replayHeaders: [3] })).toThrow(/`replayHeaders`/);
  });

  it('refuses a store that lacks a method of IdempotencyStore', () => {
    expect(() => create({ store: {} })).toThrow(/`store`/);
    // A null store, like an unset one, means the default MemoryStore.
    expect(() => create({ store: null })).not.toThrow();
  });

  it('refuses cors that is neither a boolean nor an object', () => {
    expect(() => create({ cors: 'yes' })).toThrow(/`cors`/);
    expect(() => create({ cors: 1 })).toThrow(/`cors`/);
    // null, like unset, means off.
    expect(normalizeHandlerOptions({ ...base, cors: null as unknown as boolean }).cors).toBeUndefined();
  });

  it('requires scope and handler', () => {
    expect(() => createIdempotencyHandler({ handler: base.handler } as IdempotencyHandlerOptions)).toThrow(/`scope`/);
    expect(() => createIdempotencyHandler({ scope: base.scope } as IdempotencyHandlerOptions)).toThrow(/`handler`/);
  });

  it('refuses out-of-range numbers, naming each', () => {
    expect(() => create({ retryAfterSeconds: -1 })).toThrow(/`retryAfterSeconds`/);
    expect(() => create({ maxResponseBytes: 1.5 })).toThrow(/`maxResponseBytes`/);
    expect(() => create({ flushMs: -1 })).toThrow(/`flushMs`/);
    // A batch threshold of 0 bytes would flush on every byte: at least 1.
    expect(() => create({ flushBytes: 0 })).toThrow(/`flushBytes`/);
    expect(() => create({ flushBytes: 1 })).not.toThrow();
  });

  it('refuses options that are missing or not an object, by the function they were given to', () => {
    // Without options there is no scope or handler: the error says what is missing, not a bare TypeError.
    const call = createIdempotencyHandler as (options?: unknown) => unknown;
    expect(() => call()).toThrow(/`createIdempotencyHandler\(\) options` must be an options object/);
    expect(() => call(null)).toThrow(/`createIdempotencyHandler\(\) options`/);
    expect(() => call('store')).toThrow(/`createIdempotencyHandler\(\) options`/);
  });

  it('refuses an onEvent that is not a function', () => {
    expect(() => create({ onEvent: 'log' })).toThrow(/`onEvent`/);
  });
});

describe('createIdempotencyHandler: cors', () => {
  it('is off by default and with false, and cors: true means the CORS defaults', () => {
    expect(normalizeHandlerOptions(base).cors).toBeUndefined();
    expect(normalizeHandlerOptions({ ...base, cors: false }).cors).toBeUndefined();
    const on = normalizeHandlerOptions({ ...base, cors: true }).cors;
    expect(on?.allows('https://any.example')).toBe(true);
  });
});

describe('lease options', () => {
  it('derives the heartbeat as a third of the lease (at least 1 ms)', () => {
    expect(normalizeLeaseOptions().heartbeatMs).toBe(3_333);
    expect(normalizeLeaseOptions({ leaseMs: 9_000 }).heartbeatMs).toBe(3_000);
    expect(normalizeLeaseOptions({ leaseMs: 2 }).heartbeatMs).toBe(1);
    expect(normalizeLeaseOptions({ leaseMs: 9_000, heartbeatMs: 100 }).heartbeatMs).toBe(100);
  });

  it('refuses a heartbeat below 1 ms and TTLs below 1 ms, naming each', () => {
    expect(() => normalizeLeaseOptions({ heartbeatMs: 0 })).toThrow(/`heartbeatMs`/);
    expect(() => normalizeLeaseOptions({ completedTtlMs: 0 })).toThrow(/`completedTtlMs`/);
    expect(() => normalizeLeaseOptions({ failedTtlMs: 0 })).toThrow(/`failedTtlMs`/);
    expect(() => create({ completedTtlMs: 0 })).toThrow(/`completedTtlMs`/);
    expect(normalizeLeaseOptions({ completedTtlMs: 1, failedTtlMs: 1 })).toMatchObject({
      completedTtlMs: 1,
      failedTtlMs: 1,
    });
  });
});
