/**
 * `answer-once/otel`: what answer-once did and saved, on OpenTelemetry metrics — an
 * `onEvent` listener for `createIdempotencyHandler` and `runOnce`.
 *
 * @module answer-once/otel
 */
export { otelMetrics } from './metrics.js';

export type { OtelMetricsOptions } from './metrics.js';
