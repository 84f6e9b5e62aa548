/**
 * Saving an intent before its first attempt leaves: the request exactly as it goes on the
 * wire (URL with its query, method, headers, body text), so a reload can send it again
 * byte for byte (`client.resend`) and the server recognises it by its fingerprint.
 */
import type { StoppedIntents } from './stopped.js';
import type { IntentStorage, StoredIntent } from './types.js';

let told = false;

/**
 * The storage failed (denied — a private mode, blocked site data —, full, cleared): the
 * send goes on without its record, so a reload cannot resume it; the page is told once.
 */
export function storageUnavailable(error: unknown): undefined {
  if (!told) {
    told = true;
    console.warn('answer-once: the intent storage is unavailable, so a reload cannot resume pending sends:', error);
  }
  return undefined;
}

/** Saves the request of one intent: what `runIntent` calls with the first request it builds. */
export type Persist = (request: Request) => Promise<void>;

/** The saver of one intent (see {@link storedIntentOf}). */
export function persister(
  storage: IntentStorage,
  stopped: StoppedIntents,
  requestId: string,
  input: string,
  headersInit: HeadersInit | undefined,
): Persist {
  return async (request) => {
    const intent = await storedIntentOf(request, requestId, input, headersInit);
    try {
      await storage.save(intent);
    } catch (error) {
      storageUnavailable(error);
      return;
    }
    // A stopped intent sent to the same input is over: the new one is what a reload resumes.
    await stopped.saved(intent).catch(() => undefined);
  };
}

/**
 * The record of one intent's request. `headers` are the caller's (the stored set, without
 * ky's own); the request's content type is added when the caller set none. The body is the
 * text the request carries, read from a clone (`unstorableBodyKind` refused the bodies text
 * cannot hold).
 */
export async function storedIntentOf(
  request: Request,
  requestId: string,
  input: string,
  headersInit: HeadersInit | undefined,
): Promise<StoredIntent> {
  const headers = [...new Headers(headersInit)];
  const type = request.headers.get('content-type');
  const text = request.body ? await request.clone().text() : undefined;
  return {
    v: 1,
    requestId,
    input,
    url: request.url,
    method: request.method,
    headers: type === null || headers.some(([k]) => k === 'content-type') ? headers : [['content-type', type], ...headers],
    ...(text !== undefined && { body: text }),
    createdAt: Date.now(),
  };
}

/** A stored intent's request init, as `resend` and `stream` send it again. */
export function storedRequest(stored: StoredIntent): { method: string; headers: [string, string][]; body: string | null } {
  return {
    method: stored.method,
    headers: stored.headers.map(([k, v]) => [k, v] as [string, string]),
    body: stored.body ?? null,
  };
}
