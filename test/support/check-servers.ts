/**
 * The servers the check's specs run `answer-once check` against, on 127.0.0.1: the
 * reference server over a given store, and two that must fail it — a plain handler without
 * answer-once, and one that dedupes naively (it keeps an answer only once it is complete,
 * so a duplicate during work runs the model again). Each runs the same slow model (a token
 * every {@link TOKEN_DELAY_MS}) and counts its calls. The user comes from
 * `Authorization: Bearer <user>`, as an app's auth would decide.
 */

import { createIdempotencyHandler, type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { expect } from 'vitest';
import { runCheck } from '../../src/check/runner.js';
import { tokenResponse } from './token-stream.js';

const TOKEN_DELAY_MS = 40;
const TOKENS = 12;

export interface CheckedServer {
  /** The protected route, e.g. `http://127.0.0.1:41234/api/chat`. */
  readonly url: string;
  /** Model calls so far. */
  calls(): number;
  close(): Promise<void>;
}

/** The headers of user `name`, as `answer-once check --header` takes them. */
export const signedIn = (name: string): [string, string][] => [['Authorization', `Bearer ${name}`]];

const userOf = (request: Request) => request.headers.get('Authorization')?.replace(/^Bearer /, '') || undefined;

/** The model: run `run`'s answer, a token at a time; it ends early when `signal` aborts (a stop). */
function model(run: number, signal?: AbortSignal): Response {
  const tokens = Array.from({ length: TOKENS }, (_, index) => (index === 0 ? `run ${run}:` : ` token ${index}`));
  return tokenResponse(tokens, { delayMs: TOKEN_DELAY_MS, ...(signal && { signal }) });
}

async function served(handle: (request: Request) => Promise<Response>, calls: () => number): Promise<CheckedServer> {
  const server = await serve(handle);
  return { url: `${server.url}/api/chat`, calls, close: () => server.close() };
}

/** How a reference server is set up. */
interface ReferenceOptions {
  /** Its status route. @default '/api/status' */
  readonly statusPath?: string;
  /** Its model answers at once, in one JSON body. @default false */
  readonly json?: boolean;
  /** What reaches the handler in place of each request (a fault in front of it). @default the request */
  readonly front?: (request: Request) => Request;
}

/** `createIdempotencyHandler` over `store`. */
export function startReferenceServer(
  store: IdempotencyStore = new MemoryStore(),
  { statusPath, json = false, front = (request) => request }: ReferenceOptions = {},
): Promise<CheckedServer> {
  let calls = 0;
  const handle = createIdempotencyHandler({
    store,
    ...(statusPath && { statusPath }),
    scope: (request) => {
      const user = userOf(request);
      return user ? { user } : new Response('sign in first', { status: 401 });
    },
    handler: async (request, { signal }) => {
      await request.text();
      return json ? Response.json({ answer: `run ${++calls}` }) : model(++calls, signal);
    },
  });
  return served(
    (request) => handle(front(request)),
    () => calls,
  );
}

/**
 * Runs `answer-once check` against the reference server over `store` and expects every
 * case to pass with the model run once per intent; stops the server after.
 */
export async function expectCheckPasses(store: IdempotencyStore): Promise<void> {
  const server = await startReferenceServer(store);
  try {
    const report = await runCheck({ url: server.url, headers: signedIn('alice'), otherHeaders: signedIn('bob') });
    expect(report.results.filter((result) => result.outcome !== 'pass')).toEqual([]);
    expect(report.passed).toBe(13);
    expect(server.calls()).toBe(12); // the intents a run sends (the scope case: one per identity)
  } finally {
    await server.close();
  }
}

/** The chat route alone: every request runs the model. */
export function startPlainServer(): Promise<CheckedServer> {
  let calls = 0;
  return served(
    async (request) => {
      if (new URL(request.url).pathname !== '/api/chat') return new Response('not found', { status: 404 });
      await request.text();
      return model(++calls);
    },
    () => calls,
  );
}

interface Kept {
  readonly body: string;
  readonly answer: Uint8Array<ArrayBuffer>;
}

const problem = (status: number, code: string, title: string) =>
  Response.json(
    { type: `https://answer-once.dev/problems/${code}`, title, status, code },
    {
      status,
      headers: { 'Content-Type': 'application/problem+json' },
    },
  );

/**
 * Idempotency as often written by hand: IDs checked, answers kept per user and ID with
 * their body (another body: 422) and replayed flagged, a status route — but an answer is
 * kept only once the model has finished it, so nothing marks an intent in progress. With
 * `rerun`, worse: it says it replays a kept answer but runs the model again for it.
 */
export function startNaiveServer({ rerun = false }: { rerun?: boolean } = {}): Promise<CheckedServer> {
  let calls = 0;
  const kept = new Map<string, Kept>();
  const replay = (id: string, { answer }: Kept) =>
    new Response(answer, {
      headers: { 'Content-Type': 'text/event-stream', 'X-Request-Id': id, 'X-Idempotent-Replayed': 'true' },
    });
  return served(
    async (request) => {
      const user = userOf(request);
      if (!user) return new Response('sign in first', { status: 401 });
      const { pathname } = new URL(request.url);
      if (pathname.startsWith('/api/status/')) {
        const id = pathname.slice('/api/status/'.length);
        const answer = kept.get(`${user}/${id}`);
        return answer ? replay(id, answer) : problem(404, 'intent-not-found', 'No such intent.');
      }
      const id = request.headers.get('X-Request-Id') ?? request.headers.get('Idempotency-Key')?.replaceAll('"', '');
      if (!id) return problem(400, 'missing-request-id', 'X-Request-Id is missing.');
      if (!/^[A-Za-z0-9_-]{8,128}$/.test(id)) return problem(400, 'invalid-request-id', 'Invalid request ID.');
      const body = await request.text();
      const key = `${user}/${id}`;
      const answer = kept.get(key);
      if (answer && answer.body !== body) return problem(422, 'request-id-reused', 'Another body.');
      if (answer && !rerun) return replay(id, answer);
      if (answer) return replay(id, { body, answer: new Uint8Array(await model(++calls).arrayBuffer()) });
      const fresh = new Uint8Array(await model(++calls).arrayBuffer());
      kept.set(key, { body, answer: fresh });
      return new Response(fresh, { headers: { 'Content-Type': 'text/event-stream', 'X-Request-Id': id } });
    },
    () => calls,
  );
}
