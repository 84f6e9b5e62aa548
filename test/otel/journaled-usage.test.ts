/**
 * A journaled agent turn on OpenTelemetry, through a crash and a re-run: every model call
 * and tool call counted once where it ran, with the tokens it paid; the steps the re-run
 * took from the journal counted as avoided, with their tokens; no ID in any attribute.
 */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { otelMetrics } from 'answer-once/otel';
import { MemoryStore, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { twoStepAgent } from '../support/two-step-agent.js';

describe('otelMetrics of a journaled agent turn', () => {
  it('counts what every run paid beside what the re-run took from the journal, without an ID in any attribute', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const onEvent = otelMetrics({ meter: provider.getMeter('test') });
    const store = new MemoryStore();
    // The second model call breaks before its provider reported usage: the run fails.
    const { calls, turn } = twoStepAgent((call) => (call === 2 ? 'before-finish' : undefined));
    await expect(runOnce(store, 'intent-secret-7', turn, { onEvent })).rejects.toThrow();
    await runOnce(store, 'intent-secret-7', turn, { onEvent });
    expect(calls).toEqual({ model: 3, tool: 1 });

    await reader.forceFlush();
    const measured =
      exporter
        .getMetrics()
        .at(-1)
        ?.scopeMetrics.flatMap(({ metrics }) => metrics) ?? [];
    const total = (name: string, attributes: Record<string, string> = {}) =>
      (measured.find(({ descriptor }) => descriptor.name === name)?.dataPoints ?? [])
        .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value))
        .reduce((sum, { value }) => sum + (value as number), 0);
    expect({
      modelCalls: total('answer_once.model.steps'),
      modelCallsAvoided: total('answer_once.model.steps_avoided'),
      toolCalls: total('answer_once.tool.calls'),
      toolCallsAvoided: total('answer_once.tool.calls_avoided'),
      inputPaid: total('answer_once.tokens.paid', { 'gen_ai.token.type': 'input' }),
      outputPaid: total('answer_once.tokens.paid', { 'gen_ai.token.type': 'output' }),
      inputAvoided: total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' }),
      outputAvoided: total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'output' }),
    }).toEqual({
      modelCalls: 3, // the first step, the cut one, the cut one called again
      modelCallsAvoided: 1,
      toolCalls: 1,
      toolCallsAvoided: 1,
      inputPaid: 7 + 11, // the cut call reported none: it adds nothing, not a made-up 0 measurement
      outputPaid: 2 + 5,
      inputAvoided: 7,
      outputAvoided: 2,
    });
    const attributes = measured.flatMap(({ dataPoints }) => dataPoints.flatMap((point) => Object.values(point.attributes)));
    expect(attributes.filter((value) => /secret|req-|call-/.test(String(value)))).toEqual([]);
    await provider.shutdown();
  });
});
