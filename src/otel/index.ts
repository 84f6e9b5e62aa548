/**
 * `answer-once/otel`: what answer-once did and saved, on OpenTelemetry metrics — an
 * `onEvent` listener for `createIdempotencyHandler` and `runOnce`.
 *
 * @module answer-once/otel
 */

export type { OtelMetricsOptions } from './metrics.js';
export { otelMetrics } from './metrics.js';
