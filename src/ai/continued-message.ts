/**
 * A resumed answer that continues an assistant message — the request's last message is
 * the assistant's (the answers to its tool approvals, or tool outputs the page ran), and
 * the server streams on into that message (`originalMessages`) — as `useChat` must see
 * it: the message as the request sent it, then the answer. The transport's resumes are
 * replays (`resumeStreamIsReplay`), so the AI SDK empties the message at the replay's
 * `start`; the stored answer holds only what came after the request, and the message's
 * earlier parts (the text before the tool call, the tool part the answer's output
 * belongs to) would be gone — a reload right after Approve showing "No tool invocation
 * found". Live, useChat streams the answer onto the message it sent: the same here.
 */
import type { UIMessage, UIMessageChunk } from 'ai';

type Part = UIMessage['parts'][number];
type ToolPart = Extract<Part, { toolCallId: string }>;

/** The chunks that build `part` of a message, as a stream had sent them. */
function toolChunks(part: ToolPart): UIMessageChunk[] {
  const { toolCallId } = part;
  const dynamic = part.type === 'dynamic-tool';
  const toolName = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  const named = { toolCallId, toolName, ...(dynamic && { dynamic }), ...(part.title && { title: part.title }) };
  if (part.state === 'input-streaming') return [{ type: 'tool-input-start', ...named }];
  if (part.state === 'output-error' && part.input === undefined) {
    return [{ type: 'tool-input-error', ...named, input: undefined, errorText: part.errorText }];
  }
  const chunks: UIMessageChunk[] = [
    {
      type: 'tool-input-available',
      ...named,
      input: part.input,
      ...(part.providerExecuted !== undefined && { providerExecuted: part.providerExecuted }),
      ...(part.callProviderMetadata && { providerMetadata: part.callProviderMetadata }),
    },
  ];
  if (part.approval) {
    const { id: approvalId, approved, reason } = part.approval;
    chunks.push({ type: 'tool-approval-request', approvalId, toolCallId });
    if (approved !== undefined)
      chunks.push({ type: 'tool-approval-response', approvalId, approved, ...(reason && { reason }) });
  }
  if (part.state === 'output-available') chunks.push({ type: 'tool-output-available', toolCallId, output: part.output });
  else if (part.state === 'output-error') chunks.push({ type: 'tool-output-error', toolCallId, errorText: part.errorText });
  else if (part.state === 'output-denied') chunks.push({ type: 'tool-output-denied', toolCallId });
  return chunks;
}

/** The chunks after a `start` that build `message`'s parts as they are, step by step. */
function messageChunks(message: UIMessage): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [];
  let inStep = false;
  message.parts.forEach((part, index) => {
    const id = `continued-${index}`;
    const meta = 'providerMetadata' in part && part.providerMetadata ? { providerMetadata: part.providerMetadata } : {};
    if (part.type === 'step-start') {
      if (inStep) chunks.push({ type: 'finish-step' });
      chunks.push({ type: 'start-step' });
      inStep = true;
    } else if (part.type === 'text' || part.type === 'reasoning') {
      const kind = part.type;
      chunks.push(
        { type: `${kind}-start`, id, ...meta },
        { type: `${kind}-delta`, id, delta: part.text },
        { type: `${kind}-end`, id },
      );
    } else if ('toolCallId' in part) {
      chunks.push(...toolChunks(part));
    } else {
      // Sources, files, data and custom parts: each is sent as a chunk of its own shape.
      chunks.push(part as UIMessageChunk);
    }
  });
  if (inStep) chunks.push({ type: 'finish-step' });
  return chunks;
}

/** The assistant message the request `body` (a chat request's JSON) continues, if it continues one. */
export function continuedMessage(body: string | undefined): UIMessage | undefined {
  try {
    const { messages } = JSON.parse(body ?? '') as { messages?: unknown };
    const last: unknown = Array.isArray(messages) ? messages.at(-1) : undefined;
    const message = last as UIMessage | undefined;
    return message?.role === 'assistant' && Array.isArray(message.parts) ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `answer` with `message`'s parts rebuilt after its first `start`: pulled one chunk at a
 * time, so what the reader took is what useChat took (a stop names that position).
 */
export function continuing(answer: ReadableStream<UIMessageChunk>, message: UIMessage): ReadableStream<UIMessageChunk> {
  const reader = answer.getReader();
  let rebuilt = false;
  return new ReadableStream<UIMessageChunk>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        if (rebuilt || value.type !== 'start') return;
        rebuilt = true;
        for (const chunk of messageChunks(message)) controller.enqueue(chunk);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
