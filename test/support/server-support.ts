/**
 * Helpers shared by the server specs: an app whose "model call" is counted and can be
 * held open, and plain `Request` builders that sign in as a user the way an app would.
 */
import {
  createIdempotencyHandler,
  type HandleOptions,
  type HandlerContext,
  type IdempotencyEvent,
  type IdempotencyHandlerOptions,
  type IdempotencyStore,
  MemoryStore,
} from 'answer-once/server';
import { expect } from 'vitest';
import { sleep } from './sleep.js';

const ORIGIN = 'http://app.test';

export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * `store`'s record operations only, some of them replaced (a hanging call, a counter, a
 * flaky network): a store without answer logs, so the handler keeps 0.1's buffered
 * behaviour (PROTOCOL.md § 14.11).
 */
export function recordOps(
  store: IdempotencyStore | (() => IdempotencyStore),
  overrides: Partial<IdempotencyStore> = {},
): IdempotencyStore {
  // A function: the store each call goes to, looked up at the call (one that can be swapped).
  const current = typeof store === 'function' ? store : () => store;
  return {
    acquire: (...args) => current().acquire(...args),
    renew: (...args) => current().renew(...args),
    complete: (...args) => current().complete(...args),
    fail: (...args) => current().fail(...args),
    get: (...args) => current().get(...args),
    wait: (...args) => current().wait(...args),
    ...overrides,
  };
}

/** `store` with some calls replaced; unlike {@link recordOps} it keeps its answer logs if it has them. */
export function viewOf<S extends IdempotencyStore>(store: S, overrides: Partial<S>): S {
  return new Proxy(store, {
    get(target, property) {
      if (property in overrides) return overrides[property as keyof S];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `store` as it is, the name of each call it is sent pushed onto `calls`: what a request costs in round trips. */
export function notingCalls<S extends object>(store: S, calls: string[]): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Expects `response` to be the 409 `intent-stopped` problem: the intent was stopped and never runs again. */
export async function expectStopped(response: Response): Promise<void> {
  expect(response.status).toBe(409);
  expect(await response.json()).toMatchObject({ code: 'intent-stopped' });
}

/** Resolves once `condition()` holds (checked every millisecond, for at most `timeoutMs`). */
export async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !condition(); await sleep(1)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
  }
}

/** One call of the app's handler, as the app saw it. */
export interface Call {
  readonly question: string;
  readonly context: HandlerContext;
}

export interface ChatApp<S extends IdempotencyStore> {
  readonly handle: (request: Request, call?: HandleOptions) => Promise<Response>;
  readonly store: S;
  readonly calls: Call[];
  readonly events: IdempotencyEvent[];
}

/**
 * A chat endpoint: `POST /api/chat { question }` → `{ answer, run }`. The user comes from
 * `Authorization: Bearer <user>[/<session>]`, as an app's auth middleware would decide.
 */
export function chatApp<S extends IdempotencyStore = MemoryStore>(
  overrides: Partial<Omit<IdempotencyHandlerOptions, 'store'>> & {
    readonly store?: S;
    readonly work?: (call: Call) => Promise<Response | undefined> | Response | undefined;
  } = {},
): ChatApp<S> {
  const calls: Call[] = [];
  const events: IdempotencyEvent[] = [];
  const { work, store = new MemoryStore() as IdempotencyStore as S, ...options } = overrides;
  const handle = createIdempotencyHandler({
    store,
    statusPath: '/api/status',
    scope: (request) => {
      const token = request.headers.get('Authorization')?.replace(/^Bearer /, '');
      if (!token) return new Response('sign in first', { status: 401 });
      const [user = '', session = ''] = token.split('/');
      return { user, session };
    },
    handler: async (request, context) => {
      const { question } = (await request.json()) as { question: string };
      const call = { question, context };
      calls.push(call);
      const custom = await work?.(call);
      return custom ?? Response.json({ answer: `echo: ${question}`, run: calls.length });
    },
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { handle, store, calls, events };
}

export interface SendOptions {
  readonly user?: string;
  readonly id?: string | null;
  readonly question?: string;
  readonly headers?: Record<string, string>;
  readonly path?: string;
  readonly method?: string;
  readonly body?: BodyInit;
}

export function chatRequest(options: SendOptions = {}): Request {
  const { user = 'alice', id = 'req-0000000001', question = 'hello?', path = '/api/chat', method = 'POST' } = options;
  const headers = new Headers({ 'Content-Type': 'application/json', ...options.headers });
  if (user) headers.set('Authorization', `Bearer ${user}`);
  if (id !== null) headers.set('X-Request-Id', id);
  return new Request(`${ORIGIN}${path}`, { method, headers, body: options.body ?? JSON.stringify({ question }) });
}

/**
 * A resend held with `Prefer: wait=5` while the work is held `ms` more, then `release`
 * lets the work answer: what the held resend got.
 */
export async function heldResend(app: ChatApp<IdempotencyStore>, release: Gate, ms: number): Promise<Response> {
  const held = app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
  await sleep(ms);
  release.open();
  return held;
}

export function statusRequest(id: string, options: { user?: string; headers?: Record<string, string> } = {}): Request {
  const headers = new Headers(options.headers);
  headers.set('Authorization', `Bearer ${options.user ?? 'alice'}`);
  return new Request(`${ORIGIN}/api/status/${id}`, { headers });
}

/** Never resolves; rejects with `signal`'s reason once it aborts: a step that runs until its run ends. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}
