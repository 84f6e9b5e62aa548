/**
 * `answer-once/msw`: the reference server running inside msw for app tests, with
 * per-request fault injection (lost responses, failures before the work, delays,
 * workers that crash mid-work).
 *
 * @module answer-once/msw
 */

export { WorkerCrashedError } from './crash.js';
export type { Fault, FaultContext, FaultDecider, FaultType } from './faults.js';

export type { IdempotentMock, IdempotentMockOptions, IdempotentMockStats } from './mock.js';
export { createIdempotentMock } from './mock.js';
