/**
 * The error families of the stores (`answer-once/postgres`, `/redis`, `/upstash`): what a
 * caller reads off an error — its class, `name`, `code`, message and `cause` — for every
 * class of each family, from its public entry.
 */
import {
  PostgresStoreClosedError,
  PostgresStoreError,
  PostgresStoreReplyError,
  PostgresStoreUnavailableError,
} from 'answer-once/postgres';
import { RedisStoreClosedError, RedisStoreError, RedisStoreReplyError, RedisStoreUnavailableError } from 'answer-once/redis';
import * as upstash from 'answer-once/upstash';
import { describe, expect, it } from 'vitest';

const families = {
  Postgres: [PostgresStoreError, PostgresStoreUnavailableError, PostgresStoreReplyError, PostgresStoreClosedError],
  Redis: [RedisStoreError, RedisStoreUnavailableError, RedisStoreReplyError, RedisStoreClosedError],
} as const;

/** Each class's name after its store's prefix, and its code. */
const KINDS = [
  ['StoreError', 'store-failed'],
  ['StoreUnavailableError', 'store-unavailable'],
  ['StoreReplyError', 'store-failed'],
  ['StoreClosedError', 'store-unavailable'],
] as const;

describe.each(Object.entries(families))('the %s store errors', (store, classes) => {
  const [Base] = classes;

  it.each(KINDS.map(([kind, code], index) => [`${store}${kind}`, code, classes[index]!] as const))(
    '%s has that name on the class and the error, code %s, and keeps message and cause',
    (name, code, ErrorClass) => {
      const cause = new Error('ECONNREFUSED');
      const error = new ErrorClass('answer-once: acquire failed', { cause });
      expect(ErrorClass.name).toBe(name);
      expect(error).toBeInstanceOf(ErrorClass);
      expect(error).toBeInstanceOf(Base);
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({ name, code, message: 'answer-once: acquire failed', cause });
      expect(String(error)).toBe(`${name}: answer-once: acquire failed`);
      expect(Object.keys(error).sort()).toEqual(['code', 'name']);
    },
  );

  it('keeps each kind apart: no kind is an instance of another', () => {
    const [, ...kinds] = classes;
    for (const Kind of kinds) {
      for (const Other of kinds) {
        if (Other !== Kind) expect(new Kind('x')).not.toBeInstanceOf(Other);
      }
    }
  });

  it('is not the other store family', () => {
    const other = store === 'Redis' ? families.Postgres[0] : families.Redis[0];
    expect(new Base('x')).not.toBeInstanceOf(other);
  });
});

describe('the Upstash store errors', () => {
  it('are the Redis store classes themselves', () => {
    expect(upstash).toMatchObject({
      RedisStoreError,
      RedisStoreUnavailableError,
      RedisStoreReplyError,
      RedisStoreClosedError,
    });
  });
});
