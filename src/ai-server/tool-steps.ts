/**
 * The tools' side of a journaled agent run: each tool's `execute` runs through `ctx.step`
 * (`kind: 'tool'`), so a tool call a former run of the intent finished is answered from the
 * journal without running, and one whose outcome is unknown is never silently run again.
 */
import type { ToolExecutionOptions, ToolSet } from 'ai';
import type { StepContext, StepOptions } from '../server/index.js';
import type { JournalContext } from './journal-context.js';

/**
 * How one tool's calls are journaled: the step options of `ctx.step` a tool can choose.
 * With `repeat: 'never'` (the default) and no `reconcile`, a call a former run started and
 * recorded no outcome for is not run again: the model gets the tool's error instead — "this
 * action may or may not have happened" (`StepUncertainError`'s message) — and the run goes on.
 */
export type ToolStepOptions = Pick<StepOptions, 'repeat' | 'reconcile'>;

/** The step of the tool call whose `execute` got `options`, for {@link toolStep}. */
const running = new WeakMap<object, StepContext>();

/**
 * The journal step of a tool call, inside the tool's `execute` (pass it the options
 * `execute` received): its `key` — derived from the intent and the call, the same in every
 * run — to send as the `Idempotency-Key` of the tool's outbound request, and the run's
 * `signal`. Throws a `TypeError` outside a tool of `journaled(…).tools`.
 */
export function toolStep(options: Pick<ToolExecutionOptions<never>, 'toolCallId'>): StepContext {
  const step = typeof options === 'object' && options !== null ? running.get(options) : undefined;
  if (step === undefined) {
    throw new TypeError(
      "answer-once/ai/server: toolStep(options) takes the options a journaled tool's execute received (a tool of journaled(ctx, { tools }).tools).",
    );
  }
  return step;
}

/** `tools` with each executable tool's calls journaled as the steps `tool:<name>`. */
export function journaledTools<TOOLS extends ToolSet>(
  context: JournalContext,
  tools: TOOLS,
  options: Partial<Record<string, ToolStepOptions>>,
): TOOLS {
  const wrapped: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (typeof execute !== 'function') {
      wrapped[name] = tool;
      continue;
    }
    const stepOptions = { ...options[name], kind: 'tool' };
    wrapped[name] = {
      ...tool,
      execute: (input: unknown, callOptions: ToolExecutionOptions<never>) =>
        context.step(
          `tool:${name}`,
          (step) => {
            running.set(callOptions, step);
            return finalOutput(execute.call(tool, input as never, callOptions as never));
          },
          stepOptions,
        ),
    };
  }
  return wrapped as TOOLS;
}

/** A tool's output; for a tool that streams (an async iterable of preliminary outputs), its last one — the one recorded. */
async function finalOutput(output: unknown): Promise<unknown> {
  const value = await output;
  if (value === null || typeof value !== 'object' || !(Symbol.asyncIterator in value)) return value;
  let last: unknown;
  for await (const next of value as AsyncIterable<unknown>) last = next;
  return last;
}
