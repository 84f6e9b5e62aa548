/**
 * `answer-once/otel` through the OpenTelemetry SDK itself: what a dashboard would show of
 * model calls made and avoided, tokens avoided, outcomes and first bytes.
 */

import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { otelMetrics } from 'answer-once/otel';
import { createIdempotencyHandler, type IdempotencyEvent, MemoryStore, type RunContext, runOnce } from 'answer-once/server';
import { afterEach, describe, expect, it } from 'vitest';
import { gate } from '../support/server-support.js';
import { sleep } from '../support/sleep.js';

const encoder = new TextEncoder();

/** A meter provider whose every measurement can be read back. */
function metricsRig() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter('test');
  /** Every data point of `name`, as `{ attributes, value }` (a histogram's value is its count and sum). */
  async function points(name: string) {
    await reader.forceFlush();
    const metric = exporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap(({ metrics }) => metrics)
      .find(({ descriptor }) => descriptor.name === name);
    return (metric?.dataPoints ?? []).map(({ attributes, value }) => ({ attributes, value }));
  }
  async function total(name: string, attributes: Record<string, string> = {}): Promise<number> {
    return (await points(name))
      .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value))
      .reduce((sum, { value }) => sum + (value as number), 0);
  }
  /** The requests counted under each of `names` (`answer_once.outcome`), by name. */
  async function outcomes(...names: string[]): Promise<Record<string, number>> {
    return Object.fromEntries(
      await Promise.all(
        names.map(async (name) => [name, await total('answer_once.requests', { 'answer_once.outcome': name })] as const),
      ),
    );
  }
  return { meter, provider, points, total, outcomes, shutdown: () => provider.shutdown() };
}

let rig: ReturnType<typeof metricsRig> | undefined;
afterEach(async () => {
  await rig?.shutdown();
  rig = undefined;
});

/** A chat route whose model streams `words` SSE events (one every `delayMs`) and reports 100 in / 50 out. */
function chatHandler(options: { words?: number; delayMs?: number; onEvent: (event: IdempotencyEvent) => void }) {
  const { words = 5, delayMs = 5 } = options;
  let calls = 0;
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'ada', session: 's1' }),
    onEvent: options.onEvent,
    handler: (_request, ctx) => {
      calls += 1;
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await sleep(delayMs);
          if (sent === words) {
            ctx.reportUsage({ inputTokens: 100, outputTokens: 50 }); // as the AI SDK's onFinish would
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(`data: word${sent++}\n\n`));
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    },
  });
  return { handle, calls: () => calls };
}

type Work = Parameters<typeof createIdempotencyHandler>[0]['handler'];

/** A handler of `work` whose events the rig's meter records, as `{ handle }` (chatHandler's shape). */
const meteredApp = (handler: Work) => ({
  handle: createIdempotencyHandler({
    scope: () => ({ user: 'ada', session: 's1' }),
    onEvent: otelMetrics({ meter: rig!.meter }),
    handler,
  }),
});

/** A metered app whose model answers 'forty-two' (70 + 30 tokens) once `release()` is called. */
function heldApp() {
  const held = gate();
  const app = meteredApp(async (_request, ctx) => {
    await held.promise;
    ctx.reportUsage({ inputTokens: 70, outputTokens: 30 });
    return Response.json({ answer: 'forty-two' });
  });
  return { app, release: held.open };
}

/**
 * A `waitUntil` that keeps what the handler hands it, and `settled()` awaiting it all: a
 * request's `answered` event goes out once the store marked (or not) its call avoided.
 */
function kept() {
  const promises: Promise<unknown>[] = [];
  return {
    call: { waitUntil: (promise: Promise<unknown>) => void promises.push(promise) },
    settled: () => Promise.all(promises),
  };
}

const send = (id: string, headers: Record<string, string> = {}): Request =>
  new Request('http://app.test/api/chat', {
    method: 'POST',
    headers: { 'X-Request-Id': id, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ question: id }),
  });

describe('otelMetrics', () => {
  it('counts 10 model calls, and one call avoided per intent with the tokens it avoided, for 10 intents sent 3 times each (an attach and a replay among them)', async () => {
    rig = metricsRig();
    const app = chatHandler({ words: 6, delayMs: 10, onEvent: otelMetrics({ meter: rig.meter }) });
    const background = kept();
    for (let i = 0; i < 10; i += 1) {
      const id = `intent-000000${i}`;
      const first = await app.handle(send(id));
      await sleep(40); // the head is in the log: a second send attaches to the live answer
      const attached = await app.handle(send(id), background.call);
      expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
      const [mine, theirs] = await Promise.all([first.text(), attached.text()]);
      expect(theirs).toBe(mine);
      const replay = await app.handle(send(id), background.call);
      expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
      expect(await replay.text()).toBe(mine);
    }
    await background.settled(); // an attach's call avoided is counted once its answer ended
    expect(app.calls()).toBe(10);
    expect(await rig.total('answer_once.model.calls')).toBe(10);
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(10);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(1_000);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'output' })).toBe(500);
    expect(await rig.outcomes('ran', 'attached', 'replayed')).toEqual({ ran: 10, attached: 10, replayed: 10 });
    const firstBytes = await rig.points('answer_once.first_byte.duration');
    const ran = firstBytes.find(({ attributes }) => attributes['answer_once.outcome'] === 'ran');
    expect(ran?.value).toMatchObject({ count: 10 });
  }, 20_000);

  it('never puts the user, the session or the request ID on an attribute', async () => {
    rig = metricsRig();
    const app = chatHandler({ onEvent: otelMetrics({ meter: rig.meter, attributes: { 'http.route': '/api/chat' } }) });
    await (await app.handle(send('secret-id-0001'))).text();
    await (await app.handle(send('secret-id-0001'))).text();
    const names = [
      'answer_once.requests',
      'answer_once.model.calls',
      'answer_once.model.calls_avoided',
      'answer_once.tokens.avoided',
      'answer_once.first_byte.duration',
    ];
    const attributes = (await Promise.all(names.map((name) => rig?.points(name) ?? []))).flat().map((p) => p.attributes);
    expect(attributes.length).toBeGreaterThan(0);
    const seen = JSON.stringify(attributes);
    for (const secret of ['secret-id-0001', 'ada', 's1']) expect(seen).not.toContain(secret);
    expect(attributes.every((a) => a['http.route'] === '/api/chat')).toBe(true);
  });

  it('tells a resume by position and a reused ID apart, and counts neither as a call avoided', async () => {
    rig = metricsRig();
    const app = chatHandler({ words: 4, delayMs: 5, onEvent: otelMetrics({ meter: rig.meter }) });
    const text = await (await app.handle(send('resume-00001'))).text();
    const lastId = /id: (\S+)/.exec(text)?.[1] ?? '';
    await (await app.handle(send('resume-00001', { 'Last-Event-ID': lastId }))).text();
    const reused = await app.handle(
      new Request('http://app.test/api/chat', {
        method: 'POST',
        headers: { 'X-Request-Id': 'resume-00001' },
        body: '{"question":"another"}',
      }),
    );
    expect(reused.status).toBe(422);
    await reused.text();
    expect(await rig.outcomes('resumed', 'conflict')).toEqual({ resumed: 1, conflict: 1 });
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(0);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'output' })).toBe(0);
  });

  it('counts a send told to come back (202) as in progress, and one that waited for the answer (Prefer: wait) as a call avoided', async () => {
    rig = metricsRig();
    const { app, release } = heldApp();
    const first = app.handle(send('poll-000001'));
    await sleep(20);
    const told = await app.handle(send('poll-000001'));
    expect(told.status).toBe(202);
    await told.text();
    const background = kept();
    const waiting = app.handle(send('poll-000001', { Prefer: 'wait=5' }), background.call);
    await sleep(20);
    release();
    await (await first).text();
    const waited = await waiting;
    expect(waited.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await waited.json()).toEqual({ answer: 'forty-two' });
    await background.settled();
    expect(await rig.total('answer_once.model.calls')).toBe(1);
    expect(await rig.outcomes('in_progress', 'replayed')).toEqual({ in_progress: 1, replayed: 1 });
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(1);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(70);
  });

  it('counts a run that failed, and the answer attached to it, as failed: a model call made, none avoided', async () => {
    rig = metricsRig();
    let calls = 0;
    const app = meteredApp(() => {
      calls += 1;
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await sleep(15);
          if (sent === 6) return controller.error(new Error('the provider broke'));
          controller.enqueue(encoder.encode(`data: word${sent++}\n\n`));
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    });
    const first = await app.handle(send('broke-000001'));
    await sleep(40); // its head is in the log: the resend attaches
    const attached = await app.handle(send('broke-000001'));
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    const [mine, theirs] = await Promise.all([first.text(), attached.text()]);
    expect(mine).toContain('event: answer-once.error');
    expect(theirs).toContain('event: answer-once.error');
    const buffered = meteredApp(() => new Response('overloaded', { status: 503 }));
    const overloaded = await buffered.handle(send('busy-0000001'));
    expect(overloaded.status).toBe(503);
    await overloaded.text();
    expect(calls).toBe(1);
    expect(await rig.total('answer_once.model.calls')).toBe(2);
    expect(await rig.outcomes('failed', 'ran', 'attached')).toEqual({ failed: 3, ran: 0, attached: 0 });
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(0);
  });

  it('counts a stopped answer as stopped, its run and its replays alike: a model call made, none avoided', async () => {
    rig = metricsRig();
    const app = chatHandler({ words: 200, delayMs: 10, onEvent: otelMetrics({ meter: rig.meter }) });
    const stop = (id: string) =>
      app.handle(new Request(`http://app.test/api/status/${id}`, { method: 'DELETE' })).then((r) => r.status);
    // Stopped mid-answer: the body ends in the stop marker, and so does its replay.
    const streaming = await app.handle(send('stop-0000001'));
    const reading = streaming.text();
    await sleep(60);
    expect(await stop('stop-0000001')).toBe(202);
    expect(await reading).toContain('event: answer-once.stopped');
    const replay = await app.handle(send('stop-0000001'));
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await replay.text()).toContain('event: answer-once.stopped');
    // Stopped before its first byte: 409 intent-stopped, for the run and for its resend.
    const silent = meteredApp(
      (_request, ctx) =>
        new Promise<Response>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    );
    const waiting = silent.handle(send('stop-0000002'));
    await sleep(20);
    expect((await silent.handle(new Request('http://app.test/api/status/stop-0000002', { method: 'DELETE' }))).status).toBe(
      202,
    );
    for (const answer of [await waiting, await silent.handle(send('stop-0000002'))]) {
      expect(answer.status).toBe(409);
      expect(await answer.json()).toMatchObject({ code: 'intent-stopped' });
    }
    expect(await rig.total('answer_once.model.calls')).toBe(2);
    expect(await rig.total('answer_once.requests', { 'answer_once.outcome': 'stopped' })).toBe(4);
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(0);
  });

  it('counts runOnce: a redelivered message is a model call avoided, with the usage its run reported', async () => {
    rig = metricsRig();
    const store = new MemoryStore();
    const onEvent = otelMetrics({ meter: rig.meter });
    let calls = 0;
    const work = async ({
      reportUsage,
    }: {
      reportUsage: (usage: { inputTokens: number; outputTokens: number }) => void;
    }) => {
      calls += 1;
      reportUsage({ inputTokens: 300, outputTokens: 120 });
      return { answer: 'hello' };
    };
    const first = await runOnce(store, 'message-1', work, { onEvent });
    const redelivered = await runOnce(store, 'message-1', work, { onEvent });
    expect(first).toEqual({ value: { answer: 'hello' }, replayed: false, usage: { inputTokens: 300, outputTokens: 120 } });
    expect(redelivered).toEqual({
      value: { answer: 'hello' },
      replayed: true,
      usage: { inputTokens: 300, outputTokens: 120 },
    });
    expect(calls).toBe(1);
    expect(await rig.total('answer_once.model.calls')).toBe(1);
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(1);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(300);
    await store.close?.();
  });

  it("counts a re-run's journaled steps: model steps and tool calls made and avoided, and a replayed model step's tokens avoided", async () => {
    rig = metricsRig();
    const store = new MemoryStore();
    const onEvent = otelMetrics({ meter: rig.meter });
    let crash = true;
    const work = async ({ step }: RunContext) => {
      await step('plan', ({ reportUsage }) => (reportUsage({ inputTokens: 40, outputTokens: 9 }), 'refund'), {
        kind: 'model',
      });
      await step('refund', () => 'refunded', { kind: 'tool' });
      if (crash) throw new Error('crashed after the tool');
      await step('email', () => 'sent', { kind: 'tool' });
      return 'done';
    };
    await runOnce(store, 'order-7', work, { onEvent }).catch(() => undefined);
    crash = false;
    await runOnce(store, 'order-7', work, { onEvent });
    expect(await rig.total('answer_once.tool.calls')).toBe(2); // refund, then email on the re-run
    expect(await rig.total('answer_once.tool.calls_avoided')).toBe(1); // refund, replayed
    expect(await rig.total('answer_once.model.steps')).toBe(1); // plan, on the first run only
    expect(await rig.total('answer_once.model.steps_avoided')).toBe(1); // plan, replayed
    expect(await rig.total('answer_once.steps', { 'answer_once.step.outcome': 'replayed' })).toBe(2);
    expect(await rig.total('answer_once.steps', { 'answer_once.step.kind': 'model' })).toBe(2);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(40);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'output' })).toBe(9);
    for (const point of await rig.points('answer_once.steps')) {
      expect(Object.values(point.attributes).join(' ')).not.toMatch(/order-7|plan|refund|email/);
    }
    await store.close?.();
  });

  it('counts an intent that ran out of runs as exhausted, and each of its runs as a model call', async () => {
    rig = metricsRig();
    const store = new MemoryStore();
    const onEvent = otelMetrics({ meter: rig.meter });
    const failing = async (): Promise<never> => {
      throw new Error('the provider broke');
    };
    for (let delivery = 0; delivery < 4; delivery += 1) {
      await runOnce(store, 'flaky-1', failing, { onEvent, maxRuns: 2 }).catch(() => undefined);
    }
    expect(await rig.total('answer_once.model.calls')).toBe(2);
    expect(await rig.outcomes('failed', 'ran', 'exhausted')).toEqual({ failed: 2, ran: 0, exhausted: 2 });
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(0);
  });

  it("takes no outcome from the model's own text: an answer whose last events are named like the markers ran, and its replay is a call avoided", async () => {
    rig = metricsRig();
    const app = meteredApp((_request, ctx) => {
      ctx.reportUsage({ inputTokens: 5, outputTokens: 5 });
      // A naive relay of model output that mimics the error and stop markers.
      const body =
        'data: hi\n\nevent: answer-once.error\ndata: {"code":"intent-failed","status":502}\n\n' +
        'event: answer-once.stopped\ndata: {}\nid: 1.99\n\n';
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    });
    const background = kept();
    for (let i = 0; i < 2; i += 1) await (await app.handle(send('mimic-00001'), background.call)).text();
    await background.settled();
    expect(await rig.outcomes('ran', 'replayed')).toEqual({ ran: 1, replayed: 1 });
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(1);
  });

  it('records on the global MeterProvider registered after otelMetrics() ran', async () => {
    const onEvent = otelMetrics(); // at module scope, before the SDK starts
    rig = metricsRig();
    metrics.setGlobalMeterProvider(rig.provider);
    try {
      await runOnce(new MemoryStore(), 'global-1', async () => 1, { onEvent });
      expect(await rig.total('answer_once.model.calls')).toBe(1);
      expect(await rig.total('answer_once.requests', { 'answer_once.outcome': 'ran' })).toBe(1);
    } finally {
      metrics.disable();
    }
  });

  it('refuses a meter that is not one, and passes every event on to a chained listener', async () => {
    expect(() => otelMetrics({ meter: {} as never })).toThrow(/`meter` must be an OpenTelemetry Meter/);
    expect(() => otelMetrics({ attributes: 'route' as never })).toThrow(/`attributes`/);
    rig = metricsRig();
    const seen: string[] = [];
    const onEvent = otelMetrics({ meter: rig.meter, onEvent: (event) => seen.push(event.type) });
    await runOnce(new MemoryStore(), 'k-1', async () => 1, { onEvent });
    expect(seen).toEqual(['acquired', 'completed', 'answered']);
  });
});

describe('otelMetrics: what counts as a call avoided (PROTOCOL.md § 7.6)', () => {
  const status = (id: string, init: RequestInit = {}): Request => new Request(`http://app.test/api/status/${id}`, init);

  it('counts one call avoided, and its tokens once, for one model call then 1,000 sends of the same ID', async () => {
    rig = metricsRig();
    const app = chatHandler({ words: 3, delayMs: 0, onEvent: otelMetrics({ meter: rig.meter }) });
    const first = await (await app.handle(send('loop-0000001'))).text();
    for (let i = 0; i < 1_000; i += 1) {
      const replay = await app.handle(send('loop-0000001'));
      expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
      expect(await replay.text()).toBe(first);
    }
    expect(app.calls()).toBe(1);
    expect(await rig.total('answer_once.model.calls')).toBe(1);
    expect(await rig.total('answer_once.requests', { 'answer_once.outcome': 'replayed' })).toBe(1_000);
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(1);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(100);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'output' })).toBe(50);
  }, 30_000);

  it('counts one call avoided for a message redelivered 1,000 times to runOnce', async () => {
    rig = metricsRig();
    const store = new MemoryStore();
    const onEvent = otelMetrics({ meter: rig.meter });
    const work = async ({ reportUsage }: { reportUsage: (usage: { inputTokens: number }) => void }) => {
      reportUsage({ inputTokens: 300 });
      return 'done';
    };
    for (let i = 0; i <= 1_000; i += 1) await runOnce(store, 'message-loop', work, { onEvent });
    expect(await rig.total('answer_once.model.calls')).toBe(1);
    expect(await rig.total('answer_once.requests', { 'answer_once.outcome': 'replayed' })).toBe(1_000);
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(1);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(300);
  }, 30_000);

  it('counts no call avoided for status polls, status reads and resumes from a position — only a send does', async () => {
    rig = metricsRig();
    const { app, release } = heldApp();
    const running = app.handle(send('poll-only-01'));
    await sleep(20);
    const polled = app.handle(status('poll-only-01', { headers: { Prefer: 'wait=5' } })); // a long poll
    await sleep(20);
    release();
    await (await running).text();
    expect(await (await polled).json()).toEqual({ answer: 'forty-two' });
    for (let i = 0; i < 3; i += 1) await (await app.handle(status('poll-only-01'))).text();
    await (await app.handle(status('poll-only-01', { method: 'HEAD' }))).text();
    const tail = await app.handle(send('poll-only-01', { Range: 'bytes=5-' }));
    expect(tail.status).toBe(206);
    await tail.text();
    await (await app.handle(status('poll-only-01', { headers: { Range: 'bytes=5-' } }))).text();
    expect(await rig.outcomes('replayed', 'resumed')).toEqual({ replayed: 5, resumed: 2 });
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(0);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(0);
    // The intent's first send answered without a run is the call avoided (its event goes
    // out once the store marked it: what the runtime's waitUntil is handed).
    const background = kept();
    await (await app.handle(send('poll-only-01'), background.call)).text();
    await background.settled();
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(1);
    expect(await rig.total('answer_once.tokens.avoided', { 'gen_ai.token.type': 'input' })).toBe(70);
  });

  it('counts no call avoided for a stream resumed by Last-Event-ID, on the send route or the status route', async () => {
    rig = metricsRig();
    const app = chatHandler({ words: 4, delayMs: 1, onEvent: otelMetrics({ meter: rig.meter }) });
    const text = await (await app.handle(send('resume-loop1'))).text();
    const lastId = /id: (\S+)/.exec(text)?.[1] ?? '';
    for (let i = 0; i < 10; i += 1) {
      await (await app.handle(send('resume-loop1', { 'Last-Event-ID': lastId }))).text();
      await (await app.handle(status('resume-loop1', { headers: { 'Last-Event-ID': lastId } }))).text();
    }
    expect(await rig.total('answer_once.requests', { 'answer_once.outcome': 'resumed' })).toBe(20);
    expect(await rig.total('answer_once.model.calls_avoided')).toBe(0);
  });
});
