/**
 * The page's answer-once client: the API on `apiBase`, pending intents in
 * sessionStorage (so a reload mid-answer resumes the same intent), up to 5 retries.
 */
import { createClient, sessionStorageAdapter } from 'answer-once';
import { apiBase } from './api.js';

export const client = createClient({
  baseUrl: `${apiBase}/`,
  storage: sessionStorageAdapter({ prefix: 'answer-once-demo:intent:' }),
  retry: { limit: 5, delay: 400 },
  // Long-poll the status route while the model is still generating.
  pollWait: 10,
  timeout: 15_000,
});
