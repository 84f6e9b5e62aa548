/**
 * The step-journal half of the store specification (`StepStore`, PROTOCOL.md § 15), as a
 * reusable suite beside `store-contract.ts`:
 *
 *   describeStepStoreContract('MemoryStore', () => new MemoryStore());
 *
 * The same clock, options and fresh key per test as the IdempotencyStore contract.
 */
import { describe, expect, it } from 'vitest';
import { isStepStore, type StepStore } from '../server/store/step-store.js';
import { eachStore, held, type StoreContract, sleep } from './store-harness.js';

/** Step IDs as the layer above derives them: 43 characters of `[A-Za-z0-9_-]`. */
const STEP = 'Zs2C4q3uJ0Yb7L1kTn9wXe5rVh8pQm6dGa0fBcEiKjA';
const OTHER = 'a-_9'.repeat(10).concat('xyz');

/** The journal operations of a {@link StepStore}: start, finish, fencing and lifetime. */
export const describeStepStoreContract: StoreContract<StepStore> = (name, setup, options = {}) => {
  describe(`${name} (StepStore contract)`, () => {
    let store: StepStore;
    let key: string;
    const { lease, slack, ttl, claim } = eachStore(setup, options, (opened, fresh) => {
      [store, key] = [opened, fresh];
    });

    it('is recognised by isStepStore', () => {
      expect(isStepStore(store)).toBe(true);
    });

    it('starts a new step, and finds it unfinished when it is started again without an outcome', async () => {
      const { token } = await claim();
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'started' });
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'unfinished' });
      expect(await store.startStep(key, token, STEP, { restart: false })).toEqual({ state: 'unfinished' });
      expect(await store.startStep(key, token, STEP, { restart: true })).toEqual({ state: 'started' });
      expect(await store.startStep(key, token, OTHER)).toEqual({ state: 'started' });
    });

    it('answers a finished step with its outcome, byte for byte, and never replaces it', async () => {
      const { token } = await claim();
      const outcome = '{"v":"naïve ✓ 🙂 \\u0000 \\"quoted\\"","u":{"inputTokens":3}}';
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'started' });
      expect(await store.finishStep(key, token, STEP, outcome)).toBe('written');
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'finished', outcome });
      // A finish tried again, or a restart, leaves the fact as it is.
      expect(await store.finishStep(key, token, STEP, '{"v":"other"}')).toBe('written');
      expect(await store.startStep(key, token, STEP, { restart: true })).toEqual({ state: 'finished', outcome });
      expect(await store.startStep(key, token, OTHER)).toEqual({ state: 'started' });
    });

    it('records an outcome for a step that has no entry yet', async () => {
      const { token } = await claim();
      expect(await store.finishStep(key, token, STEP, '{"v":1}')).toBe('written');
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'finished', outcome: '{"v":1}' });
    });

    it('keeps a large outcome whole', async () => {
      const { token } = await claim();
      const outcome = JSON.stringify({ v: 'x'.repeat(256 * 1024) });
      expect(await store.finishStep(key, token, STEP, outcome)).toBe('written');
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'finished', outcome });
    });

    it('answers gone without a record, and fenced to a token that does not hold the intent, changing nothing', async () => {
      expect(await store.startStep(key, 'any-token', STEP)).toEqual({ state: 'gone' });
      expect(await store.finishStep(key, 'any-token', STEP, '{"v":1}')).toBe('gone');
      expect(await store.get(key)).toBeNull();
      const { token } = await claim();
      expect(await store.startStep(key, 'not-the-token', STEP)).toEqual({ state: 'fenced' });
      expect(await store.finishStep(key, 'not-the-token', STEP, '{"v":1}')).toBe('fenced');
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'started' });
    });

    it('fences a settled intent: neither a step nor an outcome is written after complete or fail', async () => {
      const { token } = await claim();
      expect(await store.startStep(key, token, STEP)).toEqual({ state: 'started' });
      expect(await store.complete(key, token, 'answer', ttl)).toBe('written');
      expect(await store.finishStep(key, token, STEP, '{"v":1}')).toBe('fenced');
      expect(await store.startStep(key, token, OTHER)).toEqual({ state: 'fenced' });
    });

    it("lets a takeover read the dead run's outcomes, find its open steps unfinished, and fence its late finish", async () => {
      const { token: zombie } = await claim(lease);
      await store.startStep(key, zombie, STEP);
      await store.finishStep(key, zombie, STEP, '{"v":"fact"}');
      await store.startStep(key, zombie, OTHER);
      await sleep(lease + slack);
      const { token: successor } = await claim();
      expect(await store.startStep(key, successor, STEP)).toEqual({ state: 'finished', outcome: '{"v":"fact"}' });
      expect(await store.finishStep(key, zombie, OTHER, '{"v":"late"}')).toBe('fenced');
      expect(await store.startStep(key, zombie, OTHER, { restart: true })).toEqual({ state: 'fenced' });
      expect(await store.startStep(key, successor, OTHER)).toEqual({ state: 'unfinished' });
    });

    it('keeps the journal for a run again after FAILED', async () => {
      const { token: first } = await claim();
      await store.startStep(key, first, STEP);
      await store.finishStep(key, first, STEP, '{"v":"charged"}');
      await store.startStep(key, first, OTHER);
      expect(await store.fail(key, first, 'boom', ttl)).toBe('written');
      const { token: again } = await claim();
      expect(await store.startStep(key, again, STEP)).toEqual({ state: 'finished', outcome: '{"v":"charged"}' });
      expect(await store.startStep(key, again, OTHER)).toEqual({ state: 'unfinished' });
    });

    it('lets the journal expire with its record: a record created anew starts with an empty one', async () => {
      const { token: first } = await claim();
      await store.finishStep(key, first, STEP, '{"v":"old"}');
      await store.startStep(key, first, OTHER);
      expect(await store.fail(key, first, 'boom', lease)).toBe('written');
      await sleep(lease + slack);
      expect(await store.get(key)).toBeNull();
      const { token: fresh } = await claim();
      expect(await store.startStep(key, fresh, STEP)).toEqual({ state: 'started' });
      expect(await store.startStep(key, fresh, OTHER)).toEqual({ state: 'started' });
    });

    it('keeps one journal per intent', async () => {
      const { token } = await claim();
      await store.finishStep(key, token, STEP, '{"v":"mine"}');
      const neighbour = `answer-once-contract:{${crypto.randomUUID()}}`;
      const theirs = held(await store.acquire(neighbour, 'fp', 10 * lease)).token;
      expect(await store.startStep(neighbour, theirs, STEP)).toEqual({ state: 'started' });
    });
  });
};
