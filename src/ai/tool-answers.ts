/**
 * `toolAnswers`: what `answerOnceTransport` needs for a chat whose page answers its
 * model's tools — approvals (`addToolApprovalResponse`) and outputs the page ran
 * (`addToolOutput`) — so that each such request, which continues the assistant's
 * message, is one intent (./approvals.ts: keyed by the approvals it answers, the first
 * tab's answer shown in every tab) and a reload resumes it onto the whole message
 * (./continued-message.ts). The transport takes it as an option
 * (`answerOnceTransport({ client, toolAnswers })`) and never imports it, so a chat
 * without such tools bundles none of it; without it, the transport refuses a request
 * that continues the assistant's message, naming the option.
 */
import type { UIMessage, UIMessageChunk } from 'ai';
import { answeredApprovals, firstAnswers } from './approvals.js';
import { continuedMessage, continuing } from './continued-message.js';
import { intentIdOf } from './intent-id.js';

/** What `answerOnceTransport({ toolAnswers })` takes: `import { toolAnswers } from 'answer-once/ai'`. Named without its parts. */
export interface ToolAnswers {
  readonly continuing: (answer: never, message: never) => unknown;
}

/** The tool answers, as the transport calls them. */
export interface ToolAnswersCapability extends ToolAnswers {
  /** The approvals `message` answers and has not sent yet: each approval's id by its tool call's id. */
  readonly answered: (message: UIMessage | undefined) => ReadonlyMap<string, string>;
  /** The intent the approvals `message` answers name, else `undefined`. */
  readonly intentId: (message: UIMessage | undefined) => string | undefined;
  readonly firstAnswers: typeof firstAnswers;
  readonly continuedMessage: (body: string | undefined) => UIMessage | undefined;
  readonly continuing: (answer: ReadableStream<UIMessageChunk>, message: UIMessage) => ReadableStream<UIMessageChunk>;
}

const capability: ToolAnswersCapability = {
  answered: answeredApprovals,
  intentId(message) {
    // The approvals' ids, whatever the answers: a double-click, a second tab answering
    // too, a resend are the one intent, so the approved tool runs once.
    const approvals = [...answeredApprovals(message).values()].sort();
    return intentIdOf(approvals[0], approvals.join(' '));
  },
  firstAnswers,
  continuedMessage,
  continuing,
};

/**
 * What a chat whose page answers tool approvals or runs tools needs of the transport:
 * hand it in, `answerOnceTransport({ client, toolAnswers })`. A chat that does not import
 * it bundles none of it.
 */
export const toolAnswers: ToolAnswers = capability;
