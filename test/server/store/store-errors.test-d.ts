/**
 * The store error classes' types, as a caller narrows on them: each kind's `name` and
 * `code` are literals, the base's are open. Checked by vitest's typecheck (tsc).
 */
import {
  PostgresStoreClosedError,
  PostgresStoreError,
  PostgresStoreReplyError,
  PostgresStoreUnavailableError,
} from 'answer-once/postgres';
import { RedisStoreClosedError, RedisStoreError, RedisStoreReplyError, RedisStoreUnavailableError } from 'answer-once/redis';
import { describe, expectTypeOf, it } from 'vitest';

describe('the store error classes', () => {
  it('type the base with any name and either code', () => {
    expectTypeOf(new PostgresStoreError('x').name).toEqualTypeOf<string>();
    expectTypeOf(new RedisStoreError('x').code).toEqualTypeOf<'store-unavailable' | 'store-failed'>();
    expectTypeOf(new PostgresStoreError('x').code).toEqualTypeOf<'store-unavailable' | 'store-failed'>();
  });

  it('type each kind with its literal name and code, and as its base', () => {
    expectTypeOf(new PostgresStoreUnavailableError('x').name).toEqualTypeOf<'PostgresStoreUnavailableError'>();
    expectTypeOf(new PostgresStoreUnavailableError('x').code).toEqualTypeOf<'store-unavailable'>();
    expectTypeOf(new PostgresStoreClosedError('x').name).toEqualTypeOf<'PostgresStoreClosedError'>();
    expectTypeOf(new PostgresStoreClosedError('x').code).toEqualTypeOf<'store-unavailable'>();
    expectTypeOf(new PostgresStoreReplyError('x').name).toEqualTypeOf<'PostgresStoreReplyError'>();
    expectTypeOf(new RedisStoreUnavailableError('x').name).toEqualTypeOf<'RedisStoreUnavailableError'>();
    expectTypeOf(new RedisStoreClosedError('x').code).toEqualTypeOf<'store-unavailable'>();
    expectTypeOf(new RedisStoreReplyError('x').name).toEqualTypeOf<'RedisStoreReplyError'>();
    expectTypeOf(new RedisStoreReplyError('x')).toExtend<RedisStoreError>();
    expectTypeOf(new PostgresStoreClosedError('x')).toExtend<PostgresStoreError>();
  });
});
