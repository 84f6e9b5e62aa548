/**
 * `journaled(ctx, { model, tools })`: an AI SDK agent turn (`streamText` or `generateText`
 * with tools and `stopWhen`) whose every step runs once across every run of the intent.
 */
import { type LanguageModelMiddleware, type StreamTextTransform, type ToolSet, wrapLanguageModel } from 'ai';
import { invalidOption, optionsObject } from '../core/options.js';
import { approvalIds } from './approval-ids.js';
import type { JournalContext } from './journal-context.js';
import { modelStepsMiddleware } from './model-steps.js';
import { journaledTools, type ToolStepOptions } from './tool-steps.js';

/** A language model object (a provider's model, e.g. `openai('gpt-5')`), as `wrapLanguageModel` takes it. */
export type JournaledModel = Parameters<typeof wrapLanguageModel>[0]['model'];

/** Options of {@link journaled}. */
export interface JournaledOptions<TOOLS extends ToolSet = ToolSet> {
  /** The model whose calls become journaled steps (a model object, not a gateway id string). Required. */
  model: JournaledModel;
  /**
   * The tools whose calls become journaled steps, each named `tool:<name>`. Tools without
   * `execute` (answered by the client) are passed on as they are.
   * @default {}
   */
  tools?: TOOLS;
  /**
   * Per tool, whether a call whose outcome is unknown (a former run died inside it) may run
   * again: `{ charge: { repeat: 'safe' } }` for a tool that sends `toolStep(options).key` as
   * its `Idempotency-Key`; `{ saveOrder: { reconcile: lookup } }` for one whose effect can be
   * looked up. A tool not named here is `repeat: 'never'`: such a call becomes a tool error
   * the model sees, never a second effect.
   * @default {}
   */
  toolSteps?: { readonly [NAME in keyof TOOLS]?: ToolStepOptions };
}

/** What {@link journaled} gives `streamText` / `generateText` and `toUIMessageStreamResponse`. */
export interface Journaled<TOOLS extends ToolSet = ToolSet> {
  /** The model, its calls journaled: a recorded step replays without a model call. */
  readonly model: JournaledModel;
  /** The tools, their calls journaled: a recorded call replays without running. */
  readonly tools: TOOLS;
  /**
   * The answer's message id, derived from the intent (`answer-<requestId>`): pass it as
   * `toUIMessageStreamResponse({ generateMessageId })`, so a re-run's answer is the same
   * message, byte for byte, and the server continues it (PROTOCOL.md § 14.12).
   */
  readonly generateMessageId: () => string;
  /**
   * Pass as `streamText({ experimental_transform })`: each tool approval the turn asks for
   * (`needsApproval`) gets an id derived from the intent and its tool call, so a re-run asks
   * under the same id and the transport keys the approval's answer by it — two tabs
   * approving run the tool once (docs/ai-sdk.md § Tool approvals).
   */
  readonly transform: StreamTextTransform<TOOLS>;
}

/**
 * Journals an agent turn's model calls and tool calls as the run's steps (`ctx.step`,
 * PROTOCOL.md § 15): a re-run of the intent after a crash replays the finished steps from
 * the journal — no model call, no tool execution — and goes on from the step that broke;
 * the ids the UI sees are derived from the intent, so the replayed answer is the one
 * readers already have and the server continues it without a restart marker. Call it once
 * per run (per handler call), and call the model in the same order every run.
 */
export function journaled<TOOLS extends ToolSet = ToolSet>(
  ctx: JournalContext,
  options: JournaledOptions<TOOLS>,
): Journaled<TOOLS> {
  const context = optionsObject(ctx, 'ctx', false, 'answer-once/ai/server');
  if (
    typeof context.step !== 'function' ||
    typeof context.beginStep !== 'function' ||
    typeof context.requestId !== 'string'
  ) {
    invalidOption('ctx', "the handler's context (step, beginStep, requestId)", ctx, 'answer-once/ai/server');
  }
  const { model, tools = {} as TOOLS, toolSteps = {} } = optionsObject(options, 'options', false, 'answer-once/ai/server');
  if (typeof model !== 'object' || model === null || typeof (model as { doStream?: unknown }).doStream !== 'function') {
    invalidOption('model', 'a language model object (a provider model, not an id string)', model, 'answer-once/ai/server');
  }
  optionsObject(tools, 'tools', false, 'answer-once/ai/server');
  for (const name of Object.keys(optionsObject(toolSteps, 'toolSteps', false, 'answer-once/ai/server'))) {
    if (!(name in tools)) invalidOption(`toolSteps.${name}`, 'the name of one of `tools`', name, 'answer-once/ai/server');
  }
  const middleware: LanguageModelMiddleware = modelStepsMiddleware(context);
  const messageId = `answer-${context.requestId}`;
  return {
    model: wrapLanguageModel({ model, middleware }),
    tools: journaledTools(context, tools, toolSteps as Partial<Record<string, ToolStepOptions>>),
    generateMessageId: () => messageId,
    transform: approvalIds(context.requestId),
  };
}
