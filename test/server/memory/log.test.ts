import { LOG_LINGER_MS, MemoryStore } from 'answer-once/server';
import { bytes, held, text } from 'answer-once/testing';
import { describe, expect, it } from 'vitest';

/** A MemoryStore on a clock the test moves, and one claimed intent on it. */
async function claimed(options: { abandonedTtlMs?: number } = {}) {
  const clock = { now: 1_000 };
  const store = new MemoryStore({ now: () => clock.now, ...options });
  const { token, generation = Number.NaN } = held(await store.acquire('k', 'fp', 60_000));
  return { clock, store, token, generation };
}

const HOUR = 3_600_000;

describe('MemoryStore answer log: appends', () => {
  it('refuses a generation’s first append at an offset other than 0, opening no log', async () => {
    const { store, token } = await claimed();
    expect(await store.append('k', token, { offset: 3, data: bytes('lo'), head: 'h' })).toEqual({
      ok: false,
      reason: 'offset',
    });
    expect((await store.read('k', null)).log).toBeNull();
  });

  it('rejects a first append without a head with a TypeError that names `head`', async () => {
    const { store, token } = await claimed();
    await expect(store.append('k', token, { offset: 0, data: bytes('x') })).rejects.toThrow(/`head`/);
  });

  it('keeps its own copy of the bytes: the caller may reuse its buffer after the append', async () => {
    const { store, token } = await claimed();
    const buffer = bytes('abcd');
    await store.append('k', token, { offset: 0, data: buffer, head: 'h' });
    buffer.fill(0x2a);
    expect(text((await store.read('k', null)).log?.data ?? new Uint8Array())).toBe('abcd');
  });
});

describe('MemoryStore answer log: retainBytes', () => {
  it('keeps a single append larger than retainBytes whole: the newest bytes are never all dropped', async () => {
    const { store, token } = await claimed();
    await store.append('k', token, { offset: 0, data: bytes('0123456789'), head: 'h', retainBytes: 4 });
    expect((await store.read('k', null)).log).toMatchObject({ offset: 0, length: 10 });
  });

  it('does not count an empty append as a chunk: it never trims the bytes before it', async () => {
    const { store, token } = await claimed();
    await store.append('k', token, { offset: 0, data: bytes('abcd'), head: 'h' });
    expect(await store.append('k', token, { offset: 4, data: new Uint8Array(0), retainBytes: 0 })).toMatchObject({
      ok: true,
      length: 4,
    });
    const { log } = await store.read('k', null);
    expect(log).toMatchObject({ offset: 0, length: 4 });
    expect(text(log?.data ?? new Uint8Array())).toBe('abcd');
  });

  it('drops only as many of the oldest appends as it takes to get within retainBytes', async () => {
    const { store, token } = await claimed();
    await store.append('k', token, { offset: 0, data: bytes('aaaa'), head: 'h' });
    await store.append('k', token, { offset: 4, data: bytes('bbbb') });
    await store.append('k', token, { offset: 8, data: bytes('cccc'), retainBytes: 8 });
    const { log } = await store.read('k', null);
    expect(log).toMatchObject({ offset: 4, length: 12 });
    expect(text(log?.data ?? new Uint8Array())).toBe('bbbbcccc');
  });
});

describe('MemoryStore answer log: lifetime', () => {
  it('keeps a settled intent’s log readable LOG_LINGER_MS, then only the record', async () => {
    const { clock, store, token, generation } = await claimed();
    await store.append('k', token, { offset: 0, data: bytes('answer'), head: 'h' });
    await store.complete('k', token, 'stored', HOUR);
    clock.now += LOG_LINGER_MS - 1;
    expect((await store.read('k', { generation, offset: 2 })).log).toMatchObject({ generation, offset: 2, length: 6 });
    clock.now += 1;
    expect(await store.read('k', { generation, offset: 2 })).toEqual({
      record: expect.objectContaining({ state: 'completed', result: 'stored', generation }),
      log: null,
    });
  });

  it('lets a failed intent’s log linger the same, not the failure’s whole TTL', async () => {
    const { clock, store, token } = await claimed();
    await store.append('k', token, { offset: 0, data: bytes('partial'), head: 'h' });
    await store.fail('k', token, 'boom', HOUR);
    clock.now += LOG_LINGER_MS;
    expect(await store.read('k', null)).toEqual({ record: expect.objectContaining({ state: 'failed' }), log: null });
  });

  it('does not revive an older generation’s lingered-out log when a retry settles without writing', async () => {
    const { clock, store, token } = await claimed();
    await store.append('k', token, { offset: 0, data: bytes('first try'), head: 'h1' });
    await store.fail('k', token, 'boom', HOUR);
    clock.now += LOG_LINGER_MS + 1;
    const retry = held(await store.acquire('k', 'fp', 60_000));
    await store.fail('k', retry.token, 'boom again', HOUR);
    expect(await store.read('k', null)).toEqual({
      record: expect.objectContaining({ state: 'failed', generation: retry.generation }),
      log: null,
    });
  });

  it('forgets an abandoned intent’s log with its record: the key created again starts without one', async () => {
    const { clock, store, token, generation } = await claimed({ abandonedTtlMs: 1_000 });
    await store.append('k', token, { offset: 0, data: bytes('abandoned'), head: 'h' });
    clock.now += 60_000 + 1_000; // lease and abandonedTtlMs over: the record is gone
    const again = held(await store.acquire('k', 'fp', 60_000));
    expect(again.takeover).toBe(false);
    expect(again.generation).toBeGreaterThan(generation);
    expect(await store.read('k', null)).toEqual({
      record: expect.objectContaining({ state: 'processing', generation: again.generation }),
      log: null,
    });
  });
});
