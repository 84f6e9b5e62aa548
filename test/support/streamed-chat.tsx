import type { UseSendResult } from 'answer-once/react';
import type { ReactNode } from 'react';

/**
 * A streamed chat page over `chat` (what `useSend<string>` gave): a "send" button that sends
 * `{ content: 'hi' }`, the send's status (test id `state`) and text (`text`), then `children`.
 */
export function StreamedChat({ chat, children }: { chat: UseSendResult<string, unknown>; children?: ReactNode }) {
  return (
    <div>
      <button type="button" onClick={() => void chat.send({ json: { content: 'hi' } })}>
        send
      </button>
      <output data-testid="state">{chat.status}</output>
      <output data-testid="text">{chat.text}</output>
      {children}
    </div>
  );
}
