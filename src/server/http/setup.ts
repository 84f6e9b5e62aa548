import type { ResolvedLeaseOptions } from '../run/lease-options.js';
import type { StreamStore } from '../store/stream-store.js';
import type { WaitUntil } from './background.js';
import type { ResolvedHandlerOptions } from './handler-options.js';
import type { RequestMeter } from './request-meter.js';

/** What one idempotency handler resolved once: its options, and its store's answer logs if it keeps them. */
export interface HandlerSetup {
  readonly options: ResolvedHandlerOptions;
  /** The store, when it keeps answer logs: every answer streams through (PROTOCOL.md § 14). */
  readonly streamStore: StreamStore | undefined;
  /** The options' lease fields alone: what each run is given (`leaseOf`). */
  readonly lease: ResolvedLeaseOptions;
  /** This request's meter, when the app listens for events (request-meter.ts). */
  readonly meter?: RequestMeter | undefined;
  /** Keeps what this request's run does after its answer alive: the runtime's `waitUntil` (background.ts). */
  readonly keep?: WaitUntil | undefined;
}
