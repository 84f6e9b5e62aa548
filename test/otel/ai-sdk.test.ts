/**
 * Usage through the AI SDK as an app wires it: `streamText({ onFinish })` reports the
 * model's usage, and the intent's first replay counts it as tokens avoided on OpenTelemetry.
 */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { streamText } from 'ai';
import { otelMetrics } from 'answer-once/otel';
import { createIdempotencyHandler } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { mockModel } from '../support/ai-chat-server.js';

const INPUT = 42;
const WORDS = ['one ', 'two ', 'three ', 'four'];

describe('usage through the AI SDK', () => {
  it('counts the mock model’s usage once as tokens avoided, however often the intent is replayed', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
    const provider = new MeterProvider({ readers: [reader] });
    let calls = 0;
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'ada', session: 's1' }),
      onEvent: otelMetrics({ meter: provider.getMeter('test') }),
      handler: (_request, ctx) => {
        calls += 1;
        return streamText({
          model: mockModel(WORDS, 2, INPUT),
          prompt: 'hi',
          abortSignal: ctx.signal,
          onFinish: ({ totalUsage }) =>
            ctx.reportUsage({ inputTokens: totalUsage.inputTokens, outputTokens: totalUsage.outputTokens }),
        }).toUIMessageStreamResponse();
      },
    });
    const send = () =>
      handle(
        new Request('http://app.test/api/chat', { method: 'POST', headers: { 'X-Request-Id': 'ai-usage-001' }, body: '{}' }),
      );
    const first = await (await send()).text();
    const replays = 3;
    for (let i = 0; i < replays; i += 1) expect(await (await send()).text()).toBe(first);
    expect(calls).toBe(1);

    await reader.forceFlush();
    const avoided = exporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap(({ metrics }) => metrics)
      .find(({ descriptor }) => descriptor.name === 'answer_once.tokens.avoided');
    const byType = Object.fromEntries(
      (avoided?.dataPoints ?? []).map(({ attributes, value }) => [attributes['gen_ai.token.type'], value]),
    );
    expect(byType).toEqual({ input: INPUT, output: WORDS.length });
    await provider.shutdown();
  });
});
