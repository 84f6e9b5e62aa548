/**
 * The page's answer-once client and the `useChat` transport over it — the part to copy.
 */

import type { UIMessage } from 'ai';
import { createClient, localStorageAdapter, type SendEvent, shareTabs } from 'answer-once';
import { answerOnceTransport, toolAnswers } from 'answer-once/ai';
import { indexedDbOutbox } from 'answer-once/outbox';

const client = createClient({
  // Pending intents survive a reload here, and every tab of the page sees them: a reload
  // (or a second tab) resumes the answer still streaming instead of asking again.
  storage: localStorageAdapter({ prefix: 'answer-once-ai-demo:intent:' }),
  // Tabs reading the same answer share one stream: one reads, the others follow.
  tabs: shareTabs(),
  // A message sent offline waits in IndexedDB and goes, with its ID, once back online.
  outbox: indexedDbOutbox({ name: 'answer-once-ai-demo-outbox' }),
  retry: { limit: 5, delay: 300 },
  onEvent: (event) => {
    noteSeam(event);
    noteQueued(event);
  },
});

// Each user message is one intent (its id is the request ID); the stream resumes itself
// after a drop; `stop()` sends DELETE /api/status/<id> naming the last chunk shown, which
// stops the model on the server and keeps exactly the text on screen.
// `transport.guardStop(stop)` ignores a stop within 500 ms of the send (`stopGuardMs`):
// Stop takes Send's place, and a double-click's second click must not stop the answer.
// `toolAnswers` (the booking tool asks for approval): an approval's answer is one intent,
// keyed by the approval, and a tab whose answer came second reads the first one's outcome
// from the status route (GET <statusPath>/<id>); a reload right after Approve resumes the
// answer onto the whole message.
export const transport = answerOnceTransport({ client, api: '/api/chat', statusPath: '/api/status', toolAnswers });

export const CHAT_ID = 'demo-chat';

/** What the page shows under an answer: how often its stream was resumed or restarted (by request ID). */
export const seams = new Map<string, { resumed: number; restarted: number }>();
const seamListeners = new Set<() => void>();
let seamVersion = 0;

function noteSeam(event: SendEvent): void {
  if (event.type !== 'restart' && !(event.type === 'reconnect' && event.reason === 'cut')) return;
  const seam = seams.get(event.requestId) ?? { resumed: 0, restarted: 0 };
  if (event.type === 'restart') seam.restarted += 1;
  else seam.resumed += 1;
  seams.set(event.requestId, seam);
  seamVersion += 1;
  for (const listener of seamListeners) listener();
}

/** The messages waiting in the outbox for a connection (by request ID). */
const outboxed = new Set<string>();

function noteQueued(event: SendEvent): void {
  const before = outboxed.size;
  if (event.type === 'queued') outboxed.add(event.requestId);
  else if (event.type === 'attempt' || event.type === 'settled') outboxed.delete(event.requestId);
  if (outboxed.size === before) return;
  seamVersion += 1;
  for (const listener of seamListeners) listener();
}

/** How many messages wait for a connection. */
export const outboxCount = () => outboxed.size;

/** For `useSyncExternalStore`: a number that changes whenever `seams` or the queue does. */
export const seamStore = {
  subscribe(listener: () => void) {
    seamListeners.add(listener);
    return () => seamListeners.delete(listener);
  },
  version: () => seamVersion,
};

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

const STOPPED = 'answer-once-ai-demo:stopped';

/** The answers stopped with Stop (message ids), kept with the conversation so a reload still marks them. */
export function loadStopped(): ReadonlySet<string> {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(STOPPED) ?? '[]');
    return new Set(Array.isArray(saved) ? saved.filter((id): id is string => typeof id === 'string') : []);
  } catch {
    return new Set();
  }
}

export function saveStopped(ids: ReadonlySet<string>): void {
  localStorage.setItem(STOPPED, JSON.stringify([...ids]));
}
