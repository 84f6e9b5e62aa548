/**
 * The model's side of a journaled agent run: a language-model middleware that makes each
 * model call a journaled step (`kind: 'model'`, safe to repeat: a model call has no
 * effect). A recorded step replays its recorded parts — no model call; an open one passes
 * the model's parts through as they come (readers see it live) and records them when the
 * model's stream ends, with the usage the provider reported; a stream cut short or broken
 * records nothing, and a later run calls the model again for it.
 */
import type { LanguageModelMiddleware } from 'ai';
import { type OpenStep, StepOutcomeTooLargeError, type Usage } from '../server/index.js';
import type { JournalContext } from './journal-context.js';
import { type ModelPart, partIds, recordParts, recordResult, replayParts, replayResult, usageOf } from './model-parts.js';

const MODEL_STEP = { kind: 'model', repeat: 'safe' } as const;

/** What a model call that threw records: that attempt is over, and the step's answer comes from a later one. */
const FAILED_ATTEMPT = { failedAttempt: true } as const;
const isFailedAttempt = (value: unknown): boolean => (value as { failedAttempt?: unknown } | null)?.failedAttempt === true;

/**
 * The middleware for one run. A model step is named by the length of its prompt
 * (`model:<messages>`): each step of a turn adds messages, so steps are told apart by where
 * they stand in the conversation. A call that throws (a provider error the SDK may retry,
 * `maxRetries`) is recorded as a failed attempt, and a later run passes over it to the
 * attempt that answered — never calling the model again for a step that has an answer.
 */
export function modelStepsMiddleware(context: JournalContext): LanguageModelMiddleware {
  /**
   * Begins the model step for `params`: the recorded value to replay, or the model's
   * result with the step open.
   */
  async function begin<R>(
    params: { readonly prompt: readonly unknown[] },
    call: () => PromiseLike<R>,
  ): Promise<{ recorded: unknown } | { step: OpenStep; result: R }> {
    for (;;) {
      const step = await context.beginStep(`model:${params.prompt.length}`, MODEL_STEP);
      if (step.state === 'uncertain') throw step.error; // not for a step safe to repeat: it restarts
      if (step.state === 'recorded') {
        if (!step.outcome.ok) throw step.outcome.error;
        if (isFailedAttempt(step.outcome.value)) continue; // the SDK called again: so does this run
        return { recorded: step.outcome.value };
      }
      try {
        return { step, result: await call() };
      } catch (error) {
        await finishKept(step, { ok: true, value: FAILED_ATTEMPT }).catch(() => undefined);
        throw error;
      }
    }
  }

  return {
    async wrapStream({ doStream, params }) {
      const ids = partIds(params.prompt.length);
      const begun = await begin(params, doStream);
      if ('recorded' in begun) return { stream: streamOf(replayParts(begun.recorded).map(ids)) };
      return { ...begun.result, stream: recording(begun.result.stream, begun.step, ids) };
    },

    async wrapGenerate({ doGenerate, params }) {
      const begun = await begin(params, doGenerate);
      if ('recorded' in begun) return replayResult(begun.recorded);
      const { step, result } = begun;
      await finishKept(step, { ok: true, value: recordResult(result), ...withUsage(usageOf(result.usage)) });
      return result;
    },
  };
}

function streamOf(parts: readonly ModelPart[]): ReadableStream<ModelPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/**
 * The model's stream, passed through as it comes and recorded as the step's outcome when
 * it ends. The `finish` part (and anything after it) is held until the step is recorded:
 * `streamText` runs the step's tools on it, so a tool never runs for a model step that a
 * later run would call again.
 */
function recording(
  source: ReadableStream<ModelPart>,
  step: OpenStep,
  ids: (part: ModelPart) => ModelPart,
): ReadableStream<ModelPart> {
  const reader = source.getReader();
  const parts: ModelPart[] = [];
  let held: ModelPart[] | undefined;
  let usage: Usage | undefined;
  let failure: Error | undefined;
  let settled = false;
  /** Finishes the step once: recorded at the stream's end, or left without outcome when cut or broken. */
  const settle = (outcome: Parameters<OpenStep['finish']>[0]) => {
    if (settled) return Promise.resolve();
    settled = true;
    return finishKept(step, outcome);
  };
  const cut = (error: Error) => settle({ ok: false, error, ...withUsage(usage) }).catch(() => undefined);

  return new ReadableStream<ModelPart>({
    async pull(controller) {
      for (;;) {
        let next: ReadableStreamReadResult<ModelPart>;
        try {
          next = await reader.read();
        } catch (error) {
          await cut(asError(error));
          return controller.error(error);
        }
        if (next.done) {
          try {
            await settle(
              failure
                ? { ok: false, error: failure, ...withUsage(usage) }
                : { ok: true, value: recordParts(parts), ...withUsage(usage) },
            );
          } catch (error) {
            return controller.error(error);
          }
          for (const part of held ?? []) controller.enqueue(ids(part));
          return controller.close();
        }
        const part = next.value;
        parts.push(part);
        if (part.type === 'error') failure ??= asError(part.error);
        if (part.type === 'finish') {
          usage = usageOf(part.usage);
          held = [];
        }
        if (held) {
          held.push(part);
          continue;
        }
        controller.enqueue(ids(part));
        return;
      }
    },
    async cancel(reason) {
      await cut(asError(reason ?? new Error('the model step was cut short')));
      await reader.cancel(reason);
    },
  });
}

/**
 * Finishes the step; an outcome too large to record (`maxStepBytes`) leaves it without
 * one — the answer goes on, and a later run calls the model again for this step.
 */
async function finishKept(step: OpenStep, outcome: Parameters<OpenStep['finish']>[0]): Promise<void> {
  try {
    await step.finish(outcome);
  } catch (error) {
    if (!(error instanceof StepOutcomeTooLargeError)) throw error;
  }
}

function withUsage(usage: Usage | undefined): { usage?: Usage } {
  return usage === undefined ? {} : { usage };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}
