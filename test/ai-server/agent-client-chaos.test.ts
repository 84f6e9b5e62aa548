/**
 * The 3-tool agent turn (scripted-agent.ts) with the client misbehaving as people's do,
 * against two live server processes over one RedisStore: a double-click on Send (its
 * second click on the Stop that took Send's place), a reload while a tool runs (a new
 * chat resuming the same intent from the client's storage), the stream cut mid-step on
 * the client's side, a second client sending the same message to the other instance
 * while the first one's turn is inside a tool, and a reload after the server process was
 * killed inside the email tool. Whatever the chaos: each step ran once —
 * one model call per step, one charge, one email, one row — and every chat ends `ready`
 * with the one whole answer, no text twice, no error.
 */
import type { UIMessage } from 'ai';
import { memoryStorageAdapter, type StorageAdapter } from 'answer-once';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentProcess,
  ORDERS,
  removeBundle,
  startAgent,
  startWorld,
  twoInstances,
  type World,
} from '../support/killed-agents.js';
import { type RecordingChat, recordingChat, settled, textOf } from '../support/recording-chat.js';
import { RedisServer, requireRedisServer } from '../support/redis-server.js';
import { AGENT_ANSWER, UNCERTAIN } from '../support/scripted-agent.js';
import { sleep } from '../support/sleep.js';

const QUESTION = 'Charge me and confirm.';

/** `fetch` whose first streamed answer breaks (a network error) once `events` `data:` events came through. */
function cuttingFirstStream(fetch: typeof globalThis.fetch, events: number): typeof globalThis.fetch {
  let cut = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (cut || !response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
    cut = true;
    const decoder = new TextDecoder();
    let seen = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          controller.enqueue(chunk);
          seen += (decoder.decode(chunk, { stream: true }).match(/^data: \{/gm) ?? []).length;
          if (seen >= events) controller.error(new TypeError('network error: the connection was reset'));
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** A page's `fetch`: after `unload()` its open bodies break and it sends nothing more, as a page gone. */
function page(fetch: typeof globalThis.fetch) {
  let gone = false;
  const open = new Set<TransformStreamDefaultController<Uint8Array>>();
  const pageFetch: typeof globalThis.fetch = async (input, init) => {
    if (gone) return new Promise<Response>(() => {}); // a page that is gone sends nothing
    const response = await fetch(input, init);
    if (!response.body) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({ start: (controller) => void open.add(controller) }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return {
    fetch: pageFetch,
    unload() {
      gone = true;
      for (const controller of open) controller.error(new TypeError('the page was unloaded'));
    },
  };
}

/** What the browser kept of a page's storage when it unloaded (the next page reads it). */
async function kept(storage: StorageAdapter): Promise<StorageAdapter> {
  const copy = memoryStorageAdapter();
  for (const intent of await storage.list()) await copy.save(intent);
  return copy;
}

describe.skipIf(!requireRedisServer())('journaled agent turn under client chaos (two server processes, RedisStore)', () => {
  let redis: RedisServer;
  let orders: ReturnType<typeof createClient>;
  let world: World;
  let a: AgentProcess;
  let b: AgentProcess;
  /** Requests to instance A, or to B. */
  let toA: typeof globalThis.fetch;
  let toB: typeof globalThis.fetch;
  let env: Record<string, string>;
  let chats = 0;
  const chatId = () => `chaos-${++chats}`;

  beforeAll(async () => {
    [redis, world] = await Promise.all([RedisServer.start(), startWorld()]);
    orders = createClient({ url: redis.url });
    orders.on('error', () => {});
    await orders.connect();
    env = { AGENT_STORE: 'redis', AGENT_STORE_URL: redis.url, AGENT_WORLD_URL: world.url };
    [a, b] = await Promise.all([startAgent(env), startAgent(env)]);
    toA = twoInstances(a, a).fetch;
    toB = twoInstances(b, b).fetch;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    orders?.destroy();
    await Promise.all([world?.close(), redis?.stop(), removeBundle()]);
  });

  /**
   * The turn of chat `id` ran each step once, and each of `chatsShown` shows its one whole
   * answer, no text twice, no error — the email's outcome `emailUnknown` said so.
   */
  async function expectOnceAndWhole(id: string, ...chatsShown: RecordingChat[]) {
    return expectOnce(id, false, ...chatsShown);
  }

  async function expectOnce(id: string, emailUnknown: boolean, ...chatsShown: RecordingChat[]) {
    for (const chat of chatsShown) {
      await settled(chat);
      expect(chat.status).toBe('ready');
      expect(chat.error).toBeUndefined();
      const answers = chat.messages.filter((message) => message.role === 'assistant');
      expect(answers).toHaveLength(1);
      expect(textOf(answers[0])).toBe(AGENT_ANSWER);
      const email = answers[0]?.parts.find((part) => part.type === 'tool-email');
      if (emailUnknown) expect(email).toMatchObject({ state: 'output-error', errorText: expect.stringMatching(UNCERTAIN) });
      else expect(email).toMatchObject({ state: 'output-available' });
      for (const shown of chat.recorded.shown) expect(AGENT_ANSWER.startsWith(shown)).toBe(true);
    }
    const counts = world.counts(id);
    expect(counts.modelCalls).toEqual([1, 1, 1, 1]);
    expect([counts.chargeRequests, counts.charges, counts.emails]).toEqual([1, 1, 1]);
    const rows = await orders.lRange(ORDERS.redisList, 0, -1);
    expect(rows.filter((row) => row.endsWith(` ${id}`))).toHaveLength(1);
  }

  it('answers a double-click on Send (the second click on Stop, within the guard) once, whole and not stopped', async () => {
    const id = chatId();
    const chat = recordingChat({ fetch: toA, id });
    const sent = chat.sendMessage({ text: QUESTION });
    await sleep(120);
    await chat.guardedStop();
    await sent;
    await expectOnceAndWhole(id, chat);
  });

  it('finishes the turn on the reloaded page when the page reloads while a tool runs', async () => {
    const held = world.hold('/email');
    const storage = memoryStorageAdapter();
    const first = page(toA);
    const id = chatId();
    const before = recordingChat({ fetch: first.fetch, id, storage });
    void before.sendMessage({ text: QUESTION });
    await held.arrived; // the email tool is running
    first.unload();
    const [question] = before.messages as [UIMessage];
    // The reloaded page: its messages and pending intents restored, its chat resuming.
    const after = recordingChat({ fetch: toB, id, storage: await kept(storage), messages: [question] });
    const resumed = after.resumeStream();
    held.release();
    await resumed;
    await expectOnceAndWhole(id, after);
  });

  it('finishes the turn on the reloaded page when the server process is killed inside the email tool: the email said unknown, never sent twice', async () => {
    const dying = await startAgent(env, { inside: 'email' });
    const storage = memoryStorageAdapter();
    const first = page(twoInstances(dying, dying).fetch);
    const id = chatId();
    const before = recordingChat({ fetch: first.fetch, id, storage });
    void before.sendMessage({ text: QUESTION });
    expect(await dying.ended).toBe('SIGKILL'); // the email went out, its result never recorded
    first.unload();
    const [question] = before.messages as [UIMessage];
    const after = recordingChat({ fetch: toB, id, storage: await kept(storage), messages: [question] });
    await after.resumeStream();
    await expectOnce(id, true, after);
  });

  it.each([3, 12, 30])('continues the answer when the client’s stream is cut after %d events, mid-step', async (events) => {
    const id = chatId();
    const chat = recordingChat({ fetch: cuttingFirstStream(toA, events), id });
    await chat.sendMessage({ text: QUESTION });
    await expectOnceAndWhole(id, chat);
  });

  it('gives a second client sending the same message to the other instance, while a tool runs, the same one answer', async () => {
    const held = world.hold('/charge');
    const id = chatId();
    const first = recordingChat({ fetch: toA, id });
    const second = recordingChat({ fetch: toB, id });
    const firstSent = first.sendMessage({ text: QUESTION });
    await held.arrived; // the charge tool is running on A
    const secondSent = second.sendMessage({ text: QUESTION });
    await sleep(100); // B has the resend in hand
    held.release();
    await Promise.all([firstSent, secondSent]);
    await expectOnceAndWhole(id, first, second);
  });
});
