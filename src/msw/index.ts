/**
 * `answer-once/msw`: the reference server running inside msw for app tests, with
 * per-request fault injection (lost responses, failures before the work, delays,
 * workers that crash mid-work).
 *
 * @module answer-once/msw
 */
export { createIdempotentMock } from './mock.js';
export { WorkerCrashedError } from './crash.js';

export type { IdempotentMock, IdempotentMockOptions, IdempotentMockStats } from './mock.js';
export type { Fault, FaultContext, FaultDecider, FaultType } from './faults.js';
