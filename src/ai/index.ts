/**
 * answer-once/ai — a `ChatTransport` for the Vercel AI SDK's `useChat`: one intent per
 * submitted message, streams that survive drops and reloads, a server-side stop.
 * Imports only types from `ai`; `ai` and `@ai-sdk/react` are optional peers.
 *
 * @module answer-once/ai
 */

export type { ToolAnswers } from './tool-answers.js';
export { toolAnswers } from './tool-answers.js';
export type {
  AnswerOnceTransport,
  AnswerOnceTransportOptions,
  RequestIdContext,
  StopErrorContext,
  StopErrorListener,
} from './transport.js';
export { answerOnceTransport } from './transport.js';
