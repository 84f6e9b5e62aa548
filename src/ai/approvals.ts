/**
 * Tool approvals in a submitted chat request: the ones its last message answers (the
 * assistant's message, its tool parts `approval-responded`), which name the request's
 * intent (./tool-answers.ts); and, for a tab whose answers came after another tab's, the
 * first answers shown in its message.
 */
import type { UIMessage } from 'ai';
import type { PositionedChunk } from './ui-chunks.js';

/** The approvals `message` answers and has not sent yet: each approval's id by its tool call's id. */
export function answeredApprovals(message: UIMessage | undefined): Map<string, string> {
  const approvals = new Map<string, string>();
  if (message?.role !== 'assistant') return approvals;
  for (const part of message.parts) {
    if ('state' in part && part.state === 'approval-responded') approvals.set(part.toolCallId, part.approval.id);
  }
  return approvals;
}

/**
 * `chunks`, the answer to another tab's answers to `approvals` (they came first), with each
 * approval's outcome said before its tool's: so the tool part's `approval.approved` is the
 * answer that counted — granted for a tool that ran (its output or error), denied for
 * `tool-output-denied` — and not the one this tab gave.
 */
export function firstAnswers(
  chunks: ReadableStream<PositionedChunk>,
  approvals: ReadonlyMap<string, string>,
): ReadableStream<PositionedChunk> {
  return chunks.pipeThrough(
    new TransformStream<PositionedChunk, PositionedChunk>({
      transform(item, controller) {
        const { type } = item.chunk;
        const approvalId =
          type.startsWith('tool-output-') && approvals.get((item.chunk as { toolCallId: string }).toolCallId);
        if (approvalId) {
          const approved = type !== 'tool-output-denied';
          controller.enqueue({ chunk: { type: 'tool-approval-response', approvalId, approved }, at: item.at });
        }
        controller.enqueue(item);
      },
    }),
  );
}
