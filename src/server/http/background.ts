import { functionOption, optionsObject } from '../../core/options.js';

/**
 * How a runtime keeps work alive after its response: Workers' `ctx.waitUntil`,
 * `waitUntil` from `@vercel/functions`, Next.js's `after`. The runtime may end whatever a
 * request started once its response is done (or its client gone) unless it was handed here.
 */
export type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * Per-request options of `handle(request, options)`. A Cloudflare Workers `ctx`
 * (`ExecutionContext`) is one as it is: `handle(request, ctx)`.
 */
export interface HandleOptions {
  /**
   * Keeps this request's work alive past its response; overrides the handler's own
   * `waitUntil` for this request. Called as a method of this object (so Workers' `ctx`
   * may be passed whole).
   * @default the handler's `waitUntil` option
   */
  waitUntil?: WaitUntil | undefined;
}

/** Whom to hand one request's background work to: the request's own host, the handler's option, or nobody. */
export function hostOf(call: HandleOptions | undefined, fallback: WaitUntil | undefined): WaitUntil | undefined {
  if (call === undefined) return fallback;
  const host = optionsObject(call, 'handle() options', false);
  if (functionOption(host.waitUntil, 'waitUntil') === undefined) return fallback;
  return (promise) => host.waitUntil?.(promise); // a method call: Workers' ctx needs its `this`
}

/**
 * What one request keeps doing after it answered — the work producing into the log while
 * its caller is gone, the record's write, the heartbeats — gathered into the one promise
 * handed to the runtime's `waitUntil`: it settles once the request is answered and every
 * kept promise settled, and never rejects (a kept failure was handled where it happened).
 */
export class Background {
  #pending = 1; // the request itself, until `close()`
  #settle!: () => void;
  readonly done = new Promise<void>((resolve) => (this.#settle = resolve));

  /** Keeps `promise` alive until it settles. */
  readonly keep = (promise: Promise<unknown>): void => {
    this.#pending += 1;
    const release = (): void => this.#release();
    promise.then(release, release);
  };

  /** The request is answered: `done` settles once what was kept has. */
  close(): void {
    this.#release();
  }

  #release(): void {
    this.#pending -= 1;
    if (this.#pending === 0) this.#settle();
  }
}
