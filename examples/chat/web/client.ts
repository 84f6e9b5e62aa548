/**
 * The page's answer-once client: the API on `apiBase`, up to 5 retries, and:
 * - `streaming`: answers stream (`useSend(…, { stream: true })` reads `client.stream`);
 * - pending intents in localStorage, so a reload — or a second tab — resumes the answer
 *   still streaming with its original ID;
 * - `shareTabs()`: tabs reading the same intent share one stream (one tab reads, the
 *   others follow; if it closes, another carries on from its last event);
 * - `indexedDbOutbox()`: a message sent offline waits in IndexedDB (it survives a closed
 *   tab) and goes, in order and with its ID, when the browser is back online.
 */
import { createClient, localStorageAdapter, shareTabs, streaming } from 'answer-once';
import { indexedDbOutbox } from 'answer-once/outbox';
import { apiBase } from './api.js';

export const client = createClient({
  streaming,
  baseUrl: `${apiBase}/`,
  storage: localStorageAdapter({ prefix: 'answer-once-demo:intent:' }),
  tabs: shareTabs(),
  outbox: indexedDbOutbox({ name: 'answer-once-demo-outbox' }),
  retry: { limit: 5, delay: 400 },
  // Long-poll the status route while the model is still generating.
  pollWait: 10,
  timeout: 15_000,
});
