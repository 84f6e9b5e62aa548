import { invalidOption, numberOption, timerOption } from '../core/options.js';

const LIBRARY = 'answer-once/msw';

/**
 * Faults a test can inject per request into the in-process server, to see how an app
 * behaves when the network and the workers misbehave.
 */
export type Fault =
  /**
   * The request reaches the server, the work runs and its answer is stored — then the
   * response is lost: the client sees a network error (a gateway timeout, a dropped
   * mobile connection). A retry with the same ID must get the stored answer.
   */
  | { readonly type: 'lose-response' }
  /**
   * The request is answered with `status` before the store or the work are touched (a
   * load balancer's 503, an overloaded gateway).
   */
  | {
      readonly type: 'fail-before';
      /** The status answered. @default 503 */
      readonly status?: number;
      /** Sends `Retry-After` with this many seconds when given. @default undefined */
      readonly retryAfterSeconds?: number;
    }
  /** The request is held `ms` milliseconds before the server sees it. */
  | {
      readonly type: 'delay';
      /** Milliseconds. Required. */
      readonly ms: number;
    }
  /**
   * The worker dies `afterMs` into the work: the work's signal aborts, the lease is never
   * renewed nor released, and the client sees a network error. The next request of the
   * intent takes it over once the lease has lapsed. A request that does not get to run
   * the work (the intent is answered or running) just loses its response.
   */
  | {
      readonly type: 'crash';
      /** How far into the work the worker dies, in milliseconds. @default 0 */
      readonly afterMs?: number;
    };

export type FaultType = Fault['type'];

/** What a fault decider knows about a request. */
export interface FaultContext {
  /** The intent's ID from `X-Request-Id` / `Idempotency-Key` (unparsed), or from the status URL. */
  readonly requestId: string | undefined;
  /** How many requests of this intent the mock has seen, this one included (1-based). */
  readonly nth: number;
  /** True for `GET <statusPath>/<id>`. */
  readonly statusRoute: boolean;
}

/** Decides the fault of every request; `undefined` lets it through untouched. */
export type FaultDecider = (request: Request, context: FaultContext) => Fault | undefined;

/** Validates one fault; throws a TypeError naming what is wrong. */
export function assertFault(fault: unknown): asserts fault is Fault {
  const type = (fault as { type?: unknown } | null)?.type;
  if (type === 'lose-response') return;
  if (type === 'fail-before') {
    const { status = 503, retryAfterSeconds = 0 } = fault as { status?: unknown; retryAfterSeconds?: unknown };
    numberOption(status, 'status', { min: 400, max: 599 }, LIBRARY);
    numberOption(retryAfterSeconds, 'retryAfterSeconds', { integer: false }, LIBRARY);
    return;
  }
  if (type === 'delay') {
    timerOption((fault as { ms?: unknown }).ms, 'ms', 0, LIBRARY);
    return;
  }
  if (type === 'crash') {
    timerOption((fault as { afterMs?: unknown }).afterMs ?? 0, 'afterMs', 0, LIBRARY);
    return;
  }
  invalidOption('type', "'lose-response', 'fail-before', 'delay' or 'crash'", type, LIBRARY);
}
