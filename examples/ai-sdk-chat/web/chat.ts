/**
 * The page's answer-once client and the `useChat` transport over it — the part to copy.
 */
import { createClient, localStorageAdapter } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import type { UIMessage } from 'ai';

const client = createClient({
  // Pending intents survive a reload here, and every tab of the page sees them: a reload
  // (or a second tab) resumes the answer still streaming instead of asking again.
  storage: localStorageAdapter({ prefix: 'answer-once-ai-demo:intent:' }),
  retry: { limit: 5, delay: 300 },
});

// Each user message is one intent (its id is the request ID); the stream resumes itself
// after a drop; `stop()` sends DELETE /api/status/<id>, which stops the model on the server.
export const transport = answerOnceTransport({ client, api: '/api/chat' });

export const CHAT_ID = 'demo-chat';

const SAVED = 'answer-once-ai-demo:messages';

/** The conversation as the page last showed it. A real app loads it from its own server. */
export function loadMessages(): UIMessage[] {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(SAVED) ?? '[]');
    return Array.isArray(saved) ? (saved as UIMessage[]) : [];
  } catch {
    return [];
  }
}

export function saveMessages(messages: readonly UIMessage[]): void {
  localStorage.setItem(SAVED, JSON.stringify(messages));
}
