/**
 * `answer-once/ai/server`: the AI SDK on the server, every agent step once — a
 * `streamText` turn's model calls and tool calls journaled as the intent's steps.
 *
 * @module answer-once/ai/server
 */

export type { JournalContext } from './journal-context.js';
export type { Journaled, JournaledModel, JournaledOptions } from './journaled.js';
export { journaled } from './journaled.js';
export type { ToolStepOptions } from './tool-steps.js';
export { toolStep } from './tool-steps.js';
