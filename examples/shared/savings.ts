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
  /** Model calls made: what the visitor pays for. */
  readonly modelCalls: number;
  /** Intents a resend of which was answered without a model call, once each: calls not paid (README, "What it saved"). */
  readonly avoidedCalls: number;
  /** The tokens those answers' and replayed steps' model calls cost: tokens not paid again. */
  readonly avoidedTokens: number;
  /** Model calls of an agent turn a re-run took from the step journal instead of calling the model. */
  readonly replayedModelCalls: number;
  /** Tool calls a re-run took from the step journal instead of running the tool again. */
  readonly replayedToolCalls: number;
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
      replayedModelCalls: sum('answer_once.model.steps_avoided'),
      replayedToolCalls: sum('answer_once.tool.calls_avoided'),
    };
  }

  return { onEvent, read };
}
