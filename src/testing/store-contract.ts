/**
 * The specification every `IdempotencyStore` must meet, as a reusable suite:
 *
 *   describeStoreContract('MemoryStore', () => new MemoryStore());
 *   describeStoreContract('RedisStore', async () => ({ store, teardown }));
 *
 * It runs on the real clock (a networked store keeps its own time), with short leases
 * and TTLs, and a fresh key per test so suites may share one database.
 */
import { describe, expect, it } from 'vitest';
import { createIdempotencyHandler, type IdempotencyEvent, runOnce } from '../server/index.js';
import type { IdempotencyStore } from '../server/store/store.js';
import { eachStore, found, held, longKey, type StoreContract, sleep } from './store-harness.js';

/**
 * The IdempotencyStore half of the contract: claims, fencing, takeovers, TTLs and
 * waiting (`acquire`, `renew`, `complete`, `fail`, `get`, `wait`, `markAvoided`), for every store.
 * `setup` makes the store under test for each test; raise `leaseMs`/`slackMs` for a
 * store whose round trips are slow.
 */
export const describeStoreContract: StoreContract<IdempotencyStore> = (name, setup, options = {}) => {
  describe(`${name} (IdempotencyStore contract)`, () => {
    let store: IdempotencyStore;
    let key: string;
    const { lease, slack, ttl } = eachStore(setup, options, (opened, fresh) => {
      [store, key] = [opened, fresh];
    });

    it('acquires a key nobody holds, with a fresh token and a lease from now', async () => {
      const before = Date.now();
      const first = held(await store.acquire(key, 'fp', lease));
      expect(first).toMatchObject({ acquired: true, takeover: false, retry: false });
      expect(first.token).toEqual(expect.any(String));
      expect(first.leaseExpiresAt).toBeGreaterThanOrEqual(before + lease - slack);
      expect(first.leaseExpiresAt).toBeLessThanOrEqual(Date.now() + lease + slack);
      expect(await store.get(key)).toMatchObject({ state: 'processing', fingerprint: 'fp', token: first.token });
    });

    it('answers a second acquire of a live intent with its PROCESSING record', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      const record = found(await store.acquire(key, 'fp', lease));
      expect(record).toMatchObject({ state: 'processing', fingerprint: 'fp', token: first.token });
    });

    it('returns the record unchanged to another fingerprint, whatever its state', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'processing', fingerprint: 'fp' });

      await sleep(lease + slack); // lease expired: still no takeover for another fingerprint
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'processing', token: first.token });

      expect(await store.fail(key, first.token, 'boom', ttl)).toBe('written');
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'failed', error: 'boom' });

      const second = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, second.token, 'answer', ttl)).toBe('written');
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'completed', result: 'answer' });
      expect(await store.get(key)).toMatchObject({ state: 'completed', fingerprint: 'fp', result: 'answer' });
    });

    it('lets a new worker take over an expired lease with a new token, keeping createdAt', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      const createdAt = (await store.get(key))?.createdAt;
      await sleep(lease + slack);
      const second = held(await store.acquire(key, 'fp', lease));
      expect(second).toMatchObject({ takeover: true, retry: false });
      expect(second.token).not.toBe(first.token);
      expect((await store.get(key))?.createdAt).toBe(createdAt);
    });

    it('rejects the zombie’s renew, complete and fail after a takeover, and keeps the successor’s answer', async () => {
      const zombie = held(await store.acquire(key, 'fp', lease));
      await sleep(lease + slack);
      const successor = held(await store.acquire(key, 'fp', lease));
      expect(await store.renew(key, zombie.token, lease)).toBe('fenced');
      expect(await store.complete(key, zombie.token, 'zombie', ttl)).toBe('fenced');
      expect(await store.fail(key, zombie.token, 'zombie', ttl)).toBe('fenced');
      expect(await store.get(key)).toMatchObject({ state: 'processing', token: successor.token });
      expect(await store.complete(key, successor.token, 'successor', ttl)).toBe('written');
      expect(await store.complete(key, zombie.token, 'zombie', ttl)).toBe('fenced');
      expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'successor' });
    });

    it('rejects writes with a token that never held the key, and a second complete', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, 'not-a-token', 'x', ttl)).toBe('fenced');
      expect(await store.renew(`${key}:other`, holder.token, lease)).toBe('gone');
      expect(await store.complete(key, holder.token, 'first', ttl)).toBe('written');
      expect(await store.complete(key, holder.token, 'second', ttl)).toBe('fenced');
      expect(await store.fail(key, holder.token, 'late', ttl)).toBe('fenced');
      expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'first' });
    });

    it('answers a write to a record that is not there `gone`, never `fenced`: nobody holds it', async () => {
      expect(await store.renew(key, 'any-token', lease)).toBe('gone');
      expect(await store.complete(key, 'any-token', 'x', ttl)).toBe('gone');
      expect(await store.fail(key, 'any-token', 'x', ttl)).toBe('gone');
      const holder = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, holder.token, 'answer', lease)).toBe('written');
      await sleep(lease + slack); // the answer's TTL ran out: the record is gone
      expect(await store.renew(key, holder.token, lease)).toBe('gone');
      expect(await store.complete(key, holder.token, 'again', ttl)).toBe('gone');
      expect(await store.fail(key, holder.token, 'again', ttl)).toBe('gone');
      expect(await store.get(key)).toBeNull();
    });

    it('extends a renewed lease so nobody takes over while the holder lives', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      for (let beat = 0; beat < 4; beat += 1) {
        await sleep(lease / 2);
        expect(await store.renew(key, holder.token, lease)).toBe('written');
      }
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ state: 'processing', token: holder.token });
      const record = await store.get(key);
      expect(record?.state === 'processing' && record.leaseExpiresAt).toBeGreaterThan(Date.now());
    });

    it('replays a COMPLETED record to the same fingerprint and forgets it after its TTL', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, holder.token, 'answer', 2 * lease)).toBe('written');
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ state: 'completed', result: 'answer' });
      const record = await store.get(key);
      expect(record?.state === 'completed' && record.completedAt).toBeGreaterThanOrEqual(record?.createdAt ?? Infinity);
      await sleep(2 * lease + slack);
      expect(await store.get(key)).toBeNull();
      expect(held(await store.acquire(key, 'fp', lease))).toMatchObject({ takeover: false, retry: false });
    });

    it('keeps the usage a run reported with its answer, replayed by another server instance', async () => {
      const usage = { inputTokens: 120, outputTokens: 30, reasoningTokens: 7 };
      const ranTwice = async (): Promise<never> => {
        throw new Error('the work ran twice');
      };
      await runOnce(store, key, async ({ reportUsage }) => {
        reportUsage(usage);
        return 'answer';
      });
      expect(await runOnce(store, key, ranTwice)).toEqual({ value: 'answer', replayed: true, usage });

      // Two handlers over one store: two server instances, or one restarted.
      const scope = () => ({ user: 'u', session: 's' });
      const keyPrefix = `usage-${crypto.randomUUID()}`;
      const request = () =>
        new Request('http://app.test/chat', { method: 'POST', headers: { 'X-Request-Id': 'usage-00001' }, body: 'q' });
      const first = createIdempotencyHandler({
        store,
        scope,
        keyPrefix,
        handler: (_request, { reportUsage }) => {
          reportUsage(usage);
          return Response.json({ answer: 'hi' });
        },
      });
      expect(await (await first(request())).json()).toEqual({ answer: 'hi' });
      const events: IdempotencyEvent[] = [];
      const second = createIdempotencyHandler({
        store,
        scope,
        keyPrefix,
        handler: ranTwice,
        onEvent: (event) => events.push(event),
      });
      // The request's `answered` event goes out once the store marked its call avoided.
      const marked: Promise<unknown>[] = [];
      const replay = await second(request(), { waitUntil: (promise) => void marked.push(promise) });
      expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
      expect(await replay.json()).toEqual({ answer: 'hi' });
      await Promise.all(marked);
      expect(events.find(({ type }) => type === 'answered')).toMatchObject({ outcome: 'replayed', avoided: true, usage });
    });

    it('lets a FAILED intent be acquired again as a retry, and forgets it after its TTL', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      expect(await store.fail(key, first.token, 'boom', ttl)).toBe('written');
      expect(await store.get(key)).toMatchObject({ state: 'failed', error: 'boom', fingerprint: 'fp' });
      const retry = held(await store.acquire(key, 'fp', lease));
      expect(retry).toMatchObject({ takeover: false, retry: true });
      expect(retry.token).not.toBe(first.token);

      expect(await store.fail(key, retry.token, 'again', 2 * lease)).toBe('written');
      await sleep(2 * lease + slack);
      expect(await store.get(key)).toBeNull();
    });

    it('counts every claim of an intent as a run: the first, each retry after FAILED, each takeover', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      expect(first.runs).toBe(1);
      expect(await store.renew(key, first.token, lease)).toBe('written');
      expect(await store.get(key)).toMatchObject({ state: 'processing', runs: 1 });
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ runs: 1 }); // refused: not a run
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ runs: 1 });
      expect(await store.fail(key, first.token, 'boom', ttl)).toBe('written');
      expect(await store.get(key)).toMatchObject({ state: 'failed', runs: 1 });

      const retry = held(await store.acquire(key, 'fp', lease));
      expect(retry).toMatchObject({ retry: true, runs: 2 });
      await sleep(lease + slack);
      const takeover = held(await store.acquire(key, 'fp', lease));
      expect(takeover).toMatchObject({ takeover: true, runs: 3 });
      expect(await store.complete(key, takeover.token, 'answer', ttl)).toBe('written');
      expect(await store.get(key)).toMatchObject({ state: 'completed', runs: 3 });
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ state: 'completed', runs: 3 });
    });

    it('marks a COMPLETED record as counted once: the record the first time, null ever after', async () => {
      const mark = (): Promise<unknown> => {
        if (!store.markAvoided) throw new Error(`${name} has no markAvoided: it counts no model call avoided`);
        return store.markAvoided(key);
      };
      expect(await mark()).toBeNull(); // no record
      const holder = held(await store.acquire(key, 'fp', lease));
      expect(await mark()).toBeNull(); // still running
      expect(await store.complete(key, holder.token, 'answer', ttl)).toBe('written');
      expect(await store.get(key)).not.toHaveProperty('avoided');
      expect(await mark()).toMatchObject({ state: 'completed', fingerprint: 'fp', result: 'answer', avoided: true });
      expect(await Promise.all([mark(), mark(), mark()])).toEqual([null, null, null]);
      // The mark comes back with the record: a replay knows without asking again.
      expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'answer', avoided: true });
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ state: 'completed', avoided: true });
    });

    it('marks neither a FAILED record nor a COMPLETED one that expired, and a new record of the key starts unmarked', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      expect(await store.fail(key, first.token, 'boom', ttl)).toBe('written');
      expect(await store.markAvoided?.(key)).toBeNull();
      const retry = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, retry.token, 'answer', lease)).toBe('written');
      expect(await store.markAvoided?.(key)).toMatchObject({ state: 'completed' });
      await sleep(lease + slack);
      expect(await store.markAvoided?.(key)).toBeNull();
      const again = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, again.token, 'answer again', ttl)).toBe('written');
      expect(await store.get(key)).not.toHaveProperty('avoided');
      expect(await store.markAvoided?.(key)).toMatchObject({ state: 'completed', result: 'answer again', avoided: true });
    });

    it('counts runs only while the record lives: a FAILED record that expired starts again at 1', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      expect(await store.fail(key, first.token, 'boom', lease)).toBe('written');
      await sleep(lease + slack);
      expect(await store.get(key)).toBeNull();
      expect(held(await store.acquire(key, 'fp', lease))).toMatchObject({ retry: false, runs: 1 });
    });

    it('never issues the same token twice, across retries and keys', async () => {
      const tokens = new Set<string>();
      for (let round = 0; round < 10; round += 1) {
        const mine = held(await store.acquire(key, 'fp', lease));
        const elsewhere = held(await store.acquire(`${key}:${round}`, 'fp', lease));
        tokens.add(mine.token).add(elsewhere.token);
        expect(await store.fail(key, mine.token, 'boom', ttl)).toBe('written');
      }
      expect(tokens.size).toBe(20);
    });

    it('keeps the intent of a long key (a 16 KB scope: a JWT as the session) apart from one differing only in its last character', async () => {
      const long = longKey(key, 'a');
      const sibling = longKey(key, 'b');
      const first = held(await store.acquire(long, 'fp', 10 * lease));
      expect(found(await store.acquire(long, 'fp', lease))).toMatchObject({ state: 'processing', token: first.token });
      const other = held(await store.acquire(sibling, 'fp', 10 * lease));
      expect(await store.renew(long, first.token, 10 * lease)).toBe('written');
      expect(await store.complete(long, other.token, 'not mine', ttl)).toBe('fenced');
      expect(await store.complete(long, first.token, 'answer', ttl)).toBe('written');
      expect(await store.fail(sibling, other.token, 'boom', ttl)).toBe('written');
      expect(found(await store.acquire(long, 'fp', lease))).toMatchObject({ state: 'completed', result: 'answer' });
      expect(await store.wait(long, 20 * lease)).toMatchObject({ state: 'completed', result: 'answer' });
      expect(await store.get(sibling)).toMatchObject({ state: 'failed', error: 'boom' });
    });

    it('returns at once from wait when the record is unknown or already settled', async () => {
      const start = Date.now();
      expect(await store.wait(key, 5_000)).toBeNull();
      const holder = held(await store.acquire(key, 'fp', lease));
      await store.complete(key, holder.token, 'answer', ttl);
      expect(await store.wait(key, 5_000)).toMatchObject({ state: 'completed', result: 'answer' });
      expect(Date.now() - start).toBeLessThan(slack * 2);
    });

    it.each([
      ['completes', (token: string) => store.complete(key, token, 'answer', ttl), { state: 'completed', result: 'answer' }],
      ['fails', (token: string) => store.fail(key, token, 'boom', ttl), { state: 'failed', error: 'boom' }],
    ] as const)('wakes a waiter as soon as the holder %s', async (_, settle, settled) => {
      const holder = held(await store.acquire(key, 'fp', 10 * lease));
      const waiting = store.wait(key, 20 * lease);
      await sleep(lease / 2);
      const settledAt = Date.now();
      await settle(holder.token);
      expect(await waiting).toMatchObject(settled);
      expect(Date.now() - settledAt).toBeLessThan(slack);
    });

    it('wakes a waiter when the holder’s lease expires, with the expired record', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      const record = await store.wait(key, 20 * lease);
      const now = Date.now();
      expect(record).toMatchObject({ state: 'processing', token: holder.token });
      expect(record?.state === 'processing' && record.leaseExpiresAt).toBeLessThanOrEqual(now);
      expect(now).toBeLessThan(holder.leaseExpiresAt + slack);
    });

    it('keeps a waiter waiting across renewals, then times out with the live record', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      const start = Date.now();
      const waiting = store.wait(key, 2 * lease);
      await sleep(lease / 2);
      await store.renew(key, holder.token, lease);
      await sleep(lease / 2);
      await store.renew(key, holder.token, lease);
      await sleep(lease / 2);
      await store.renew(key, holder.token, lease);
      const record = await waiting;
      const waited = Date.now() - start;
      expect(record).toMatchObject({ state: 'processing', token: holder.token });
      expect(waited).toBeGreaterThanOrEqual(2 * lease - 5);
      expect(waited).toBeLessThan(2 * lease + slack);
    });

    it('stops waiting when the signal aborts', async () => {
      held(await store.acquire(key, 'fp', 10 * lease));
      const controller = new AbortController();
      const waiting = store.wait(key, 20 * lease, controller.signal);
      await sleep(lease / 4);
      const abortedAt = Date.now();
      controller.abort();
      expect(await waiting).toMatchObject({ state: 'processing' });
      expect(Date.now() - abortedAt).toBeLessThan(slack);
      expect(await store.wait(key, 20 * lease, controller.signal)).toMatchObject({ state: 'processing' });
    });

    it('lets many waiters on one key all wake on one write', async () => {
      const holder = held(await store.acquire(key, 'fp', 10 * lease));
      const waiters = Array.from({ length: 5 }, () => store.wait(key, 20 * lease));
      await sleep(lease / 4);
      await store.complete(key, holder.token, 'answer', ttl);
      const records = await Promise.all(waiters);
      expect(records.map((record) => record?.state)).toEqual(Array(5).fill('completed'));
    });
  });
};
