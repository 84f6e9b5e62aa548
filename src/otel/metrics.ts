import { type Attributes, type Meter, metrics } from '@opentelemetry/api';
import { functionOption, invalidOption, optionsObject } from '../core/options.js';
import type { IdempotencyEvent, IdempotencyEventListener } from '../server/events.js';

/** Options of {@link otelMetrics}. */
export interface OtelMetricsOptions {
  /**
   * The meter the instruments are created on.
   * @default metrics.getMeter('answer-once') — the global MeterProvider's, looked up at the first event
   */
  meter?: Meter;
  /**
   * Attributes added to every measurement, e.g. `{ 'http.route': '/api/chat' }` when one
   * app has several handlers. Keep them low in cardinality: never a user, a session or a
   * request ID.
   * @default {}
   */
  attributes?: Attributes;
  /** Also called with every event, after it is recorded (your own logger, say). @default undefined */
  onEvent?: IdempotencyEventListener;
}

/**
 * Bucket boundaries (seconds) for the first-byte histogram: the OpenTelemetry GenAI
 * conventions' advice for `gen_ai.server.time_to_first_token`.
 */
const FIRST_BYTE_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/**
 * An `onEvent` listener (for `createIdempotencyHandler` and `runOnce`) that records what
 * answer-once did and what it saved on OpenTelemetry metrics:
 *
 * | instrument | kind | attributes |
 * | --- | --- | --- |
 * | `answer_once.requests` | counter | `answer_once.outcome` |
 * | `answer_once.model.calls` | counter (runs started, takeovers and retries included) | — |
 * | `answer_once.model.calls_avoided` | counter (intents a send of which was answered without a run: at most one per intent) | — |
 * | `answer_once.tokens.avoided` | counter (the stored usage of each of those) | `gen_ai.token.type` (`input`, `output`) |
 * | `answer_once.first_byte.duration` | histogram, seconds (request to the first answer byte) | `answer_once.outcome` |
 * | `answer_once.steps` | counter (journaled steps, `ctx.step`) | `answer_once.step.outcome`, `answer_once.step.kind` (when given) |
 * | `answer_once.model.steps` | counter (steps of kind `model` that ran: the model calls of a journaled agent turn) | — |
 * | `answer_once.model.steps_avoided` | counter (steps of kind `model` a re-run replayed instead of calling the model) | — |
 * | `answer_once.tool.calls` | counter (steps of kind `tool` that ran) | — |
 * | `answer_once.tool.calls_avoided` | counter (steps of kind `tool` replayed or reconciled instead) | — |
 * | `answer_once.tokens.paid` | counter (the usage journaled steps that ran reported: each model call of an agent turn, once, where it ran) | `gen_ai.token.type` (`input`, `output`) |
 *
 * A call avoided is a send of an intent (not a status poll, not a resume from a position)
 * answered the whole answer without a run, counted once per intent (the store's
 * `markAvoided`): the counter never exceeds what a server without answer-once would have
 * paid for those sends, and a replay loop adds at most one. No attribute carries the
 * user, the session or the request ID. A replayed step's recorded usage counts as tokens
 * avoided too; a step that reported no usage (a model call cut before its provider said)
 * adds no tokens: unknown, never 0.
 */
export function otelMetrics(options?: OtelMetricsOptions): IdempotencyEventListener {
  const given = optionsObject(options, 'otelMetrics() options');
  if (given.meter !== undefined && !isMeter(given.meter)) invalidOption('meter', 'an OpenTelemetry Meter', given.meter);
  const base = attributesOption(given.attributes);
  const next = functionOption(given.onEvent, 'onEvent');
  // The global provider's meter is looked up at the first event: an SDK registered after
  // otelMetrics() ran (module order) still gets every measurement.
  let made = given.meter && instruments(given.meter);
  const on = () => (made ??= instruments(metrics.getMeter('answer-once')));
  const input = { ...base, 'gen_ai.token.type': 'input' };
  const output = { ...base, 'gen_ai.token.type': 'output' };

  return function recordMetrics(event: IdempotencyEvent): void {
    if (event.type === 'acquired') on().calls.add(1, base);
    else if (event.type === 'step') {
      const { steps, modelSteps, modelAvoided, toolCalls, toolAvoided, tokens, paid } = on();
      const kind = event.kind === undefined ? {} : { 'answer_once.step.kind': event.kind };
      steps.add(1, { ...base, 'answer_once.step.outcome': event.outcome, ...kind });
      const avoided = event.outcome === 'replayed' || event.outcome === 'reconciled';
      if (event.kind === 'model' && event.outcome === 'ran') modelSteps.add(1, base);
      if (event.kind === 'model' && avoided) modelAvoided.add(1, base);
      if (event.kind === 'tool' && event.outcome === 'ran') toolCalls.add(1, base);
      if (event.kind === 'tool' && avoided) toolAvoided.add(1, base);
      const spent = event.outcome === 'ran' ? paid : event.outcome === 'replayed' ? tokens : undefined;
      if (spent && event.usage?.inputTokens) spent.add(event.usage.inputTokens, input);
      if (spent && event.usage?.outputTokens) spent.add(event.usage.outputTokens, output);
    } else if (event.type === 'answered') {
      const { requests, avoided, tokens, firstByte } = on();
      const byOutcome = { ...base, 'answer_once.outcome': event.outcome };
      requests.add(1, byOutcome);
      if (event.firstByteMs !== undefined) firstByte.record(event.firstByteMs / 1000, byOutcome);
      if (event.avoided) {
        avoided.add(1, base);
        if (event.usage?.inputTokens) tokens.add(event.usage.inputTokens, input);
        if (event.usage?.outputTokens) tokens.add(event.usage.outputTokens, output);
      }
    }
    next?.(event);
  };
}

const isMeter = (value: Meter): boolean =>
  typeof value?.createCounter === 'function' && typeof value.createHistogram === 'function';

/** The instruments, on `meter`. */
function instruments(meter: Meter) {
  const counter = (name: string, unit: string, description: string) => meter.createCounter(name, { description, unit });
  return {
    requests: counter('answer_once.requests', '{request}', 'Requests answer-once handled, by what became of them.'),
    calls: counter(
      'answer_once.model.calls',
      '{call}',
      'Runs of the work (model calls) started, retries and takeovers included.',
    ),
    avoided: counter(
      'answer_once.model.calls_avoided',
      '{call}',
      'Intents whose send was answered without running the work (a replay, an attach): one per intent at most.',
    ),
    tokens: counter(
      'answer_once.tokens.avoided',
      '{token}',
      'Tokens the calls avoided would have cost: the usage their run reported.',
    ),
    paid: counter(
      'answer_once.tokens.paid',
      '{token}',
      'Tokens the journaled steps that ran reported: each model call of an agent turn, counted once where it ran.',
    ),
    steps: counter(
      'answer_once.steps',
      '{step}',
      'Journaled steps, by what became of them: ran, replayed, reconciled, uncertain.',
    ),
    modelSteps: counter(
      'answer_once.model.steps',
      '{call}',
      'Model steps (journaled model calls of an agent turn) that called the model.',
    ),
    modelAvoided: counter(
      'answer_once.model.steps_avoided',
      '{call}',
      'Model steps a re-run took from the journal instead of calling the model again.',
    ),
    toolCalls: counter('answer_once.tool.calls', '{call}', 'Tool steps that ran.'),
    toolAvoided: counter(
      'answer_once.tool.calls_avoided',
      '{call}',
      'Tool steps a re-run took from the journal instead of running them again.',
    ),
    firstByte: meter.createHistogram('answer_once.first_byte.duration', {
      description: 'Time from the request to the first byte of its answer.',
      unit: 's',
      advice: { explicitBucketBoundaries: FIRST_BYTE_BUCKETS },
    }),
  };
}

function attributesOption(value: unknown): Attributes {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    invalidOption('attributes', 'an object of OpenTelemetry attributes', value);
  }
  return { ...(value as Attributes) };
}
