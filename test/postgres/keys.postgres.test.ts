/**
 * PostgresStore keys its rows by a digest of the intent's key, so a scope of any size (a
 * JWT as the session) is served as MemoryStore serves it, and 0.3's tables, keyed by the
 * whole key, are upgraded in place with the intents they hold.
 */

import { postgresStoreSchema } from 'answer-once/postgres';
import { createIdempotencyHandler } from 'answer-once/server';
import { found, held, text } from 'answer-once/testing';
import { describe, expect, it } from 'vitest';
import { requirePostgresServer } from '../support/postgres-server.js';
import { newKey, usePostgresSuite } from '../support/postgres-suite.js';

const hasPostgres = requirePostgresServer();

/** A session as long as a 16 KB JWT, of characters that do not compress. */
const longSession = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(16 * 1024)), (byte) => String.fromCharCode(97 + (byte % 26))).join('');

/** The tables as answer-once 0.3 created them: keyed by the whole key. */
function schemaOf03(table: string): string {
  return `
CREATE TABLE ${table} (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('processing', 'completed', 'failed')),
  fingerprint text NOT NULL, token text, lease_expires_at bigint, created_at bigint NOT NULL,
  settled_at bigint, outcome text, generation bigint NOT NULL, runs integer NOT NULL, claimed_over text,
  stop_requested boolean NOT NULL DEFAULT false, stop_at bigint, expires_at bigint NOT NULL,
  log_generation bigint, log_head text, log_length bigint, log_start bigint, log_expires_at bigint
);
CREATE INDEX ${table}_expires_at ON ${table} (expires_at);
CREATE INDEX ${table}_log_expires_at ON ${table} (log_expires_at) WHERE log_expires_at IS NOT NULL;
CREATE TABLE ${table}_log (
  key text NOT NULL, generation bigint NOT NULL, start_offset bigint NOT NULL, data bytea NOT NULL,
  CONSTRAINT ${table}_log_pkey PRIMARY KEY (key, generation, start_offset)
);`;
}

/** An answered intent with its streamed log, as 0.3 stored it. */
function answered03(table: string, key: string): string {
  const far = 9_000_000_000_000;
  return `
INSERT INTO ${table} (key, state, fingerprint, created_at, settled_at, outcome, generation, runs, expires_at,
  log_generation, log_head, log_length, log_start, log_expires_at)
VALUES ('${key}', 'completed', 'fp', 1, 2, 'answer', 7, 1, ${far}, 7, 'h', 4, 0, ${far});
INSERT INTO ${table}_log (key, generation, start_offset, data) VALUES ('${key}', 7, 0, 'ab'), ('${key}', 7, 2, 'cd');`;
}

describe.skipIf(!hasPostgres)('PostgresStore keys', () => {
  const suite = usePostgresSuite();

  it('answers a request whose scope is 16 KB (a JWT as the session) once, and replays it', async () => {
    const session = longSession();
    let calls = 0;
    const handle = createIdempotencyHandler({
      store: suite.open(),
      scope: () => ({ user: 'alice', session }),
      handler: () => {
        calls += 1;
        return Response.json({ answer: 42 });
      },
    });
    const post = () =>
      handle(
        new Request('http://app.test/api/chat', {
          method: 'POST',
          headers: { 'X-Request-Id': 'long-scope-0001' },
          body: '{}',
        }),
      );
    const first = await post();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ answer: 42 });
    const replay = await post();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual({ answer: 42 });
    expect(calls).toBe(1);
  });

  it('journals the steps of an intent whose scope is 16 KB, and a re-run after it failed replays them', async () => {
    const store = suite.open();
    const key = `answer-once:{alice:${longSession()}:req-1}`;
    const first = held(await store.acquire(key, 'fp', 60_000)).token;
    expect(await store.startStep(key, first, 'step-1')).toEqual({ state: 'started' });
    expect(await store.finishStep(key, first, 'step-1', '{"v":"charged"}')).toBe('written');
    await store.fail(key, first, 'crash', 60_000);
    const again = held(await store.acquire(key, 'fp', 60_000)).token;
    expect(await store.startStep(key, again, 'step-1')).toEqual({ state: 'finished', outcome: '{"v":"charged"}' });
  });

  it('never answers a key with the record of another key that has the same digest', async () => {
    const table = `collide_${Date.now()}`;
    const store = suite.open({ table });
    const [mine, theirs] = [newKey(), newKey()];
    const holder = held(await store.acquire(theirs, 'fp', 60_000));
    await store.complete(theirs, holder.token, 'their answer', 60_000);
    // A collision, made by hand: their row now sits under my key's digest.
    await suite.pool.query(`UPDATE ${table} SET key_digest = sha256(convert_to($1::text, 'UTF8')) WHERE key = $2`, [
      mine,
      theirs,
    ]);
    expect(await store.get(mine)).toBeNull();
    expect(await store.read(mine, null)).toEqual({ record: null, log: null });
    expect(await store.wait(mine, 100)).toBeNull();
    await expect(store.acquire(mine, 'fp', 1_000)).rejects.toThrow(/holds another key/);
    expect(await store.stop(mine)).toBe('unknown');
    expect(await store.startStep(mine, holder.token, 'step-1')).toEqual({ state: 'gone' });
    expect(await store.finishStep(mine, holder.token, 'step-1', '{"v":1}')).toBe('gone');
    expect(await suite.pool.query(`SELECT key, outcome FROM ${table}`)).toMatchObject({
      rows: [{ key: theirs, outcome: 'their answer' }],
    });
  });

  it('upgrades 0.3’s tables on first use, keeping the intents they hold', async () => {
    const table = `upgrade_${Date.now()}`;
    const key = newKey();
    await suite.pool.query(schemaOf03(table) + answered03(table, key));
    const store = suite.open({ table });
    const { record, log } = await store.read(key, null);
    expect(record).toMatchObject({ state: 'completed', result: 'answer', generation: 7 });
    expect(text(log?.data ?? new Uint8Array())).toBe('abcd');
    expect(found(await store.acquire(key, 'fp', 1_000))).toMatchObject({ state: 'completed', result: 'answer' });
    const long = `answer-once:{alice:${longSession()}:id}`;
    expect(held(await store.acquire(long, 'fp', 1_000))).toMatchObject({ acquired: true, runs: 1 });
  });

  it('upgrades 0.3’s tables when a migration runs the exported schema, and running it again changes nothing', async () => {
    const table = `migrate_${Date.now()}`;
    const key = newKey();
    await suite.pool.query(schemaOf03(table) + answered03(table, key));
    await suite.pool.query(postgresStoreSchema(table));
    await suite.pool.query(postgresStoreSchema(table));
    const store = suite.open({ table, createTables: false });
    expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'answer' });
    expect(text((await store.read(key, null)).log?.data ?? new Uint8Array())).toBe('abcd');
    const long = `answer-once:{alice:${longSession()}:id}`;
    expect(held(await store.acquire(long, 'fp', 1_000))).toMatchObject({ acquired: true });
    expect(await store.sweep()).toEqual({ records: 0, logs: 0 });
  });
});
