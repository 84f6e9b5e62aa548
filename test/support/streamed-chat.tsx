import type { UseSendResult } from 'answer-once/react';
import type { ReactNode } from 'react';
import { TestPage } from './test-page.js';

/**
 * A streamed chat page over `chat` (what `useSend<string>` gave): a "send" button that sends
 * `{ content: 'hi' }`, the send's status (test id `state`) and text (`text`), then `outputs`.
 */
export function StreamedChat({
  chat,
  outputs,
}: {
  chat: UseSendResult<string, unknown>;
  outputs: Record<string, ReactNode>;
}) {
  return (
    <TestPage
      buttons={{ send: () => chat.send({ json: { content: 'hi' } }) }}
      outputs={{ state: chat.status, text: chat.text, ...outputs }}
    />
  );
}
