/**
 * What answer-once saved so far, for a demo's footer — read from the same OpenTelemetry
 * instruments an operator exports (`answer-once/otel`), on an in-process meter the page
 * polls instead of a collector.
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { otelMetrics } from 'answer-once/otel';
import type { IdempotencyEventListener } from 'answer-once/server';

/** What the footer shows: model calls made, and calls and tokens avoided. */
export interface Savings {
  readonly modelCalls: number;
  readonly avoidedCalls: number;
  readonly avoidedTokens: number;
}

/** A reader that only collects when asked: the demo's `/api/stats` asks. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export function savingsMeter(): { readonly onEvent: IdempotencyEventListener; read(): Promise<Savings> } {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  const onEvent = otelMetrics({ meter: provider.getMeter('answer-once-demo') });

  async function read(): Promise<Savings> {
    const { resourceMetrics } = await reader.collect();
    const sum = (name: string): number =>
      resourceMetrics.scopeMetrics
        .flatMap(({ metrics }) => metrics)
        .filter(({ descriptor }) => descriptor.name === name)
        .flatMap(({ dataPoints }) => dataPoints.map(({ value }) => (typeof value === 'number' ? value : 0)))
        .reduce((total, value) => total + value, 0);
    return {
      modelCalls: sum('answer_once.model.calls'),
      avoidedCalls: sum('answer_once.model.calls_avoided'),
      avoidedTokens: sum('answer_once.tokens.avoided'),
    };
  }

  return { onEvent, read };
}
