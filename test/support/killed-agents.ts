/**
 * The parent side of the killed-process crash matrix: the fake API the agents' tools call
 * (it counts model calls, charges — deduped by `Idempotency-Key`, as a payments API does —
 * and emails), the agent server processes (agent-process.ts) started ahead of need, and
 * the client's `fetch` that sends to instance A until A is gone, then to instance B.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The agent server, bundled from the sources once per run (where its dependencies resolve), and V8's code cache. */
const CACHE = path.join(ROOT, 'node_modules/.cache/crash-matrix');
const BUNDLE = path.join(CACHE, `agent-process-${process.pid}.mjs`);
const START_TIMEOUT_MS = 30_000;

/** Where `saveOrder` writes its rows (its step key and its chat), on the store's own server. */
export const ORDERS = { redisList: 'crash-matrix:orders', postgresTable: 'crash_matrix_orders' } as const;

/** What the agents did to the world for one chat. */
interface WorldCounts {
  /** Model calls per step of the script (index 0 = the first step). */
  readonly modelCalls: number[];
  /** Requests to the payments API, and the charges it made (one per distinct key). */
  readonly chargeRequests: number;
  readonly charges: number;
  readonly emails: number;
}

/** A request the API holds: `arrived` once it came, answered once `release()` is called. */
interface Held {
  readonly arrived: Promise<void>;
  release(): void;
}

export interface World {
  readonly url: string;
  /** What the agents did for chat `chat` (its requests' `x-chat`). */
  counts(chat: string): WorldCounts;
  /** Holds the next request to `path` (`'/email'`…) until released: a tool mid-call. */
  hold(path: string): Held;
  close(): Promise<void>;
}

const bodyOf = async (request: IncomingMessage): Promise<Record<string, unknown>> => {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text || '{}') as Record<string, unknown>;
};

/** The fake API on a free loopback port. */
export async function startWorld(): Promise<World> {
  const chats = new Map<
    string,
    { modelCalls: number[]; chargeRequests: number; emails: number; receipts: Map<string, string> }
  >();
  const of = (chat: string) => {
    let counts = chats.get(chat);
    if (!counts) chats.set(chat, (counts = { modelCalls: [], chargeRequests: 0, emails: 0, receipts: new Map() }));
    return counts;
  };
  const holds = new Map<string, { arrive: () => void; released: Promise<void> }>();
  const server: Server = createServer((request, response) => {
    const held = holds.get(request.url ?? '');
    holds.delete(request.url ?? '');
    held?.arrive();
    void Promise.all([bodyOf(request), held?.released]).then(([body]) => {
      const reply = (value: unknown) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const counts = of(String(request.headers['x-chat']));
      switch (request.url) {
        case '/model': {
          const index = Number(body.index);
          counts.modelCalls[index] = (counts.modelCalls[index] ?? 0) + 1;
          return reply({ calls: counts.modelCalls[index] });
        }
        case '/charge': {
          counts.chargeRequests += 1;
          const key = String(request.headers['idempotency-key'] ?? '');
          if (!key) return response.writeHead(400).end();
          if (!counts.receipts.has(key)) counts.receipts.set(key, `r-${counts.receipts.size + 1}`);
          return reply({ receipt: counts.receipts.get(key) });
        }
        case '/email':
          counts.emails += 1;
          return reply({ sent: true });
        default:
          return response.writeHead(404).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    counts(chat) {
      const { modelCalls, chargeRequests, emails, receipts } = of(chat);
      return { modelCalls: [...modelCalls], chargeRequests, charges: receipts.size, emails };
    },
    hold(path) {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(path, { arrive, released });
      return { arrived, release };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One running agent server process. */
export interface AgentProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** The signal it ended with (`'SIGKILL'` when it killed itself), once it ended. */
  readonly ended: Promise<NodeJS.Signals | null>;
  /** Ends it (SIGKILL) unless it ended already. */
  kill(): Promise<void>;
}

/** Where and how an agent process dies: after its n-th `data:` event, or inside a tool. */
export type KillPoint = { readonly afterEvents: number } | { readonly inside: string };

let bundled: Promise<unknown> | undefined;

/**
 * `agent-process.ts` and the library's sources as one script (its dependencies left to
 * node_modules): a process starts in a fraction of what transpiling them each time costs.
 */
function bundle(): Promise<unknown> {
  bundled ??= build({
    entryPoints: [path.join(ROOT, 'test/support/agent-process.ts')],
    outfile: BUNDLE,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
    plugins: [
      {
        name: 'dependencies-from-node-modules',
        setup(esbuild) {
          esbuild.onResolve({ filter: /^[^./]/ }, ({ path: specifier }) =>
            specifier === 'answer-once' || specifier.startsWith('answer-once/') ? undefined : { external: true },
          );
        },
      },
    ],
  });
  return bundled;
}

/** Removes this run's bundle (the next process started bundles again). */
export async function removeBundle(): Promise<void> {
  bundled = undefined;
  await rm(BUNDLE, { force: true });
}

/** Starts an agent server process with `env`, dying at `point`; resolves once it listens. */
export async function startAgent(env: Record<string, string>, point?: KillPoint): Promise<AgentProcess> {
  await bundle();
  const child = spawn(process.execPath, [BUNDLE], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_COMPILE_CACHE: path.join(CACHE, 'v8'),
      ...env,
      ...(point && 'afterEvents' in point && { AGENT_DIE_AFTER_EVENTS: String(point.afterEvents) }),
      ...(point && 'inside' in point && { AGENT_DIE_INSIDE: point.inside }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ended = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`agent-process did not start in ${START_TIMEOUT_MS} ms\n${output}`)),
      START_TIMEOUT_MS,
    );
    void ended.then(() => reject(new Error(`agent-process exited before it listened\n${output}`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /→ (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return {
    url,
    child,
    ended,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await ended;
    },
  };
}

/**
 * Agent processes for `points`, in order, each started while the ones before it run —
 * `ahead` at a time — so a point does not wait for a process to boot.
 */
export function agentsAhead(env: Record<string, string>, points: readonly KillPoint[], ahead = 2) {
  const started: Promise<AgentProcess>[] = [];
  const startUpTo = (index: number) => {
    for (let next = started.length; next <= Math.min(index, points.length - 1); next += 1) {
      const starting = startAgent(env, points[next]);
      starting.catch(() => {}); // awaited when its point comes
      started.push(starting);
    }
  };
  return {
    /** The process of the `index`-th point (and the next ones starting). */
    take(index: number): Promise<AgentProcess> {
      startUpTo(index + ahead);
      return started[index]!;
    },
    /** Kills whatever was started and not taken. */
    async close(): Promise<void> {
      await Promise.all(started.map(async (starting) => (await starting.catch(() => undefined))?.kill()));
    },
  };
}

/** The `data:` events of an SSE body, counted as they pass (as agent-process.ts counts them to die). */
function countingEvents(body: ReadableStream<Uint8Array>, count: () => void): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let pending = '';
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
          if (/^data: \{/m.test(pending.slice(0, end))) count();
          pending = pending.slice(end + 2);
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

export interface TwoInstances {
  /** The client's `fetch`. */
  readonly fetch: typeof globalThis.fetch;
  /** The `data:` events the client got from A. */
  readonly eventsFromA: () => number;
}

/**
 * The client's `fetch` in front of two instances: every request goes to A until A is
 * gone (its process ended, or a request to it failed at the network), then to B — the
 * client's own resend reaches the other instance, as behind a load balancer.
 */
export function twoInstances(a: AgentProcess, b: AgentProcess): TwoInstances {
  let aGone = false;
  let eventsFromA = 0;
  void a.ended.then(() => (aGone = true));
  const routed: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const { pathname, search } = new URL(request.url);
    const target = aGone ? b : a;
    const sent = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    let response: Response;
    try {
      response = await fetch(new URL(`${pathname.slice(1)}${search}`, target.url), {
        method: request.method,
        headers: request.headers,
        body: sent,
        // The caller's own signal (a copy's follows it only while something holds the copy).
        signal: init?.signal ?? (input instanceof Request ? input : request).signal,
      });
    } catch (error) {
      if (target === a) aGone = true;
      throw error;
    }
    // One origin to the client, as behind a load balancer: the instance's own in its links is the front's.
    const origin = new URL(target.url).origin;
    const headers = new Headers();
    for (const [name, value] of response.headers)
      headers.append(name, value.replaceAll(origin, new URL(request.url).origin));
    const body = target === a && response.body ? countingEvents(response.body, () => (eventsFromA += 1)) : response.body;
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
  return { fetch: routed, eventsFromA: () => eventsFromA };
}
