/**
 * The error classes of the project's own stores (`answer-once/redis`, `/upstash`,
 * `/postgres`), made here once so every store's family has the same shape: a base class
 * and three kinds beneath it, each with its literal `name` and the `code` that says
 * whether a retry may help (PROTOCOL.md § 10.4). Each store declares its public classes
 * from these, under its own names and with its own docs.
 */

/** `store-unavailable` (transient: 503 + `Retry-After`) or `store-failed` (permanent: 500). */
type StoreErrorCode = 'store-unavailable' | 'store-failed';

/** An error class whose constructor is `Error`'s. Not exported: a store's published types spell it out. */
type ErrorClass<E extends Error> = new (message: string, options?: ErrorOptions) => E;

/** A kind of a store's family: the base's instances, with a literal `name` and `code`. */
type Kind<E extends Error, N extends string, C extends StoreErrorCode> = ErrorClass<E & { name: N; readonly code: C }>;

/**
 * The base of a store's error family, named `name`: a permanent failure (`store-failed`,
 * answered 500) unless a kind beneath it says otherwise.
 */
export function storeErrorBase(name: string): ErrorClass<
  Error & {
    /** `store-unavailable` (transient: 503 + `Retry-After`) or `store-failed` (permanent: 500). */
    readonly code: 'store-unavailable' | 'store-failed'; // spelled out: the API reference shows it
  }
> {
  return class extends Error {
    override name = name;
    readonly code: StoreErrorCode = 'store-failed';
  };
}

/**
 * The three kinds beneath `base`, named after the store (`Redis` → `RedisStoreUnavailableError`):
 * - `Unavailable` (`store-unavailable`): the store could not be reached or answered a
 *   transient state; the same request may be retried;
 * - `Reply` (`store-failed`): the store answered something it never returns (corrupt or foreign data);
 * - `Closed` (`store-unavailable`): the store was closed; another instance may serve the retry.
 */
export function storeErrorKinds<E extends Error & { readonly code: StoreErrorCode }, const S extends string>(
  base: ErrorClass<E>,
  store: S,
): {
  Unavailable: Kind<E, `${S}StoreUnavailableError`, 'store-unavailable'>;
  Reply: Kind<E, `${S}StoreReplyError`, 'store-failed'>;
  Closed: Kind<E, `${S}StoreClosedError`, 'store-unavailable'>;
} {
  // A class expression extends a constructor of a known shape; `E` promises nothing past `Error`'s.
  const Base = base as ErrorClass<Error & { code: StoreErrorCode }>;
  const kind = <N extends string, C extends StoreErrorCode>(name: N, code: C) =>
    class extends Base {
      override name = name;
      override readonly code = code;
    } as unknown as Kind<E, N, C>;
  return {
    Unavailable: kind(`${store}StoreUnavailableError`, 'store-unavailable'),
    Reply: kind(`${store}StoreReplyError`, 'store-failed'),
    Closed: kind(`${store}StoreClosedError`, 'store-unavailable'),
  };
}
