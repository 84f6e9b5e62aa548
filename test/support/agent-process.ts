/**
 * One server instance of the killed-process crash matrix, run as a child process
 * (`node --import tsx test/support/agent-process.ts`): the chat route of an AI SDK app —
 * a journaled 3-tool agent turn (scripted-agent.ts) behind `createIdempotencyHandler` —
 * over RedisStore or PostgresStore, on a free loopback port it prints (`→ <url>`).
 *
 * Its tools act on a world outside it: `charge` and `email` are POSTs to the fake API at
 * `AGENT_WORLD_URL` (the charge with its step key as `Idempotency-Key`; the API dedupes by
 * it), `saveOrder` appends a row to the store's own database (Redis list / PostgreSQL
 * table), looked up by its key when a former run's outcome is unknown (`reconcile`). The
 * model asks the same API to count its calls. Each request says its chat (`x-chat`), and
 * each row names it: the API and the rows count per chat.
 *
 * It kills itself with SIGKILL — no cleanup, no flush, its lease left to lapse — where
 * `AGENT_DIE_AFTER_EVENTS=n` says (once the n-th `data:` event of its answers is written
 * to the socket, nothing after it) or `AGENT_DIE_INSIDE=<tool>` says (inside that tool,
 * after its effect, before its result is recorded).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonSchema, type ToolSet, tool } from 'ai';
import { type ToolStepOptions, toolStep } from 'answer-once/ai/server';
import { PostgresStore } from 'answer-once/postgres';
import { RedisStore } from 'answer-once/redis';
import { createIdempotencyHandler, type IdempotencyStore } from 'answer-once/server';
import { toNodeListener } from 'answer-once/server/node';
import pg from 'pg';
import { createClient } from 'redis';
import { ORDERS } from './killed-agents.js';
import { AGENT_SCRIPT, agentTurn, scriptedModel } from './scripted-agent.js';
import { sleep } from './sleep.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`agent-process: ${name} is required`);
  return value;
};
const world = env('AGENT_WORLD_URL');
const dieAfterEvents = Number(process.env.AGENT_DIE_AFTER_EVENTS ?? 0);
const dieInside = process.env.AGENT_DIE_INSIDE ?? '';
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL was sent');
};

/** The store, and the database write with its lookup, on the same server. */
async function open(): Promise<{
  store: IdempotencyStore;
  insert: (key: string, chat: string) => Promise<void>;
  written: (key: string) => Promise<boolean>;
}> {
  const url = env('AGENT_STORE_URL');
  if (env('AGENT_STORE') === 'redis') {
    const client = createClient({ url });
    client.on('error', () => {});
    await client.connect();
    return {
      store: new RedisStore({ client }),
      insert: async (key, chat) => void (await client.rPush(ORDERS.redisList, `${key} ${chat}`)),
      written: async (key) => (await client.lRange(ORDERS.redisList, 0, -1)).some((row) => row.startsWith(`${key} `)),
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  const table = ORDERS.postgresTable;
  return {
    store: new PostgresStore({ pool }),
    insert: async (key, chat) =>
      void (await pool.query(`INSERT INTO ${table} (step_key, chat) VALUES ($1, $2)`, [key, chat])),
    written: async (key) => (await pool.query(`SELECT 1 FROM ${table} WHERE step_key = $1`, [key])).rowCount !== 0,
  };
}

const { store, insert, written } = await open();

/** The tools and the model of one turn of chat `chat`: the API counts what they do under its id. */
function turnOf(chat: string): { model: ReturnType<typeof scriptedModel>; tools: ToolSet } {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> => {
    const response = await fetch(new URL(path, world), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-chat': chat, ...headers },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`the API answered ${response.status} to ${path}`);
    return response.json();
  };
  type Effect = (input: Record<string, unknown>, key: string) => Promise<unknown>;
  const effects: Record<string, Effect> = {
    charge: (input, key) => post('charge', input, { 'Idempotency-Key': key }),
    email: (input) => post('email', input),
    saveOrder: async ({ order }, key) => {
      await insert(key, chat);
      return { saved: order };
    },
  };
  const tools: ToolSet = {};
  for (const [name, effect] of Object.entries(effects)) {
    tools[name] = tool({
      inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
      execute: async (input: Record<string, unknown>, execution) => {
        const result = await effect(input, toolStep(execution).key);
        if (name === dieInside) die();
        return result;
      },
    });
  }
  const model = scriptedModel({
    script: AGENT_SCRIPT,
    called: async (index) => ((await post('model', { index })) as { calls: number }).calls,
    beforePart: () => sleep(1),
  });
  return { model, tools };
}

const toolSteps: Record<string, ToolStepOptions> = {
  charge: { repeat: 'safe' },
  saveOrder: {
    reconcile: async ({ key }) => ((await written(key)) ? { done: true, value: { saved: 'o-1' } } : { done: false }),
  },
};

const handle = createIdempotencyHandler({
  store,
  scope: () => ({ user: 'u' }),
  leaseMs: 300,
  flushMs: 5,
  retryAfterSeconds: 0, // the client asks again at once: a point takes the lease's lapse, not a second more
  handler: async (request, ctx) => {
    const { id } = (await request.clone().json()) as { id: string };
    const { model, tools } = turnOf(id);
    return agentTurn(request, ctx, { model, tools, toolSteps, maxSteps: AGENT_SCRIPT.length, onError: console.error });
  },
});

let eventsWritten = 0;
/** Writes what the listener writes event by event, and dies once the `dieAfterEvents`-th `data:` event is on the socket. */
function dyingAfterEvents(outgoing: ServerResponse): void {
  const write = outgoing.write.bind(outgoing) as (chunk: Uint8Array, done?: () => void) => boolean;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  let dying = false;
  outgoing.write = ((chunk: string | Uint8Array) => {
    if (dying) return true;
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
      const event = pending.slice(0, end + 2);
      pending = pending.slice(end + 2);
      if (/^data: \{/m.test(event) && ++eventsWritten === dieAfterEvents) {
        dying = true;
        write(encoder.encode(event), die); // handed to the kernel: the client gets it, then the process is gone
        return true;
      }
      write(encoder.encode(event));
    }
    return true;
  }) as typeof outgoing.write;
}

const listener = toNodeListener(handle);
const server = createServer((incoming, outgoing) => {
  if (dieAfterEvents > 0) dyingAfterEvents(outgoing);
  void listener(incoming, outgoing);
});
server.listen(0, '127.0.0.1', () => {
  console.log(`→ http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
