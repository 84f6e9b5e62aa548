/**
 * The crash matrix with real processes: the 3-tool agent turn (scripted-agent.ts) served
 * by two server processes over one store — RedisStore, then PostgresStore — the first of
 * which kills itself (SIGKILL: no cleanup, no flush) after each event of its answer in
 * turn, and inside each tool after its effect. The client is the AI SDK's chat logic over
 * `answerOnceTransport`; its resend reaches the second process, which takes the intent
 * over once the dead one's lease lapsed. Whatever the point: the charge (its step key
 * forwarded as `Idempotency-Key`) and the row happen exactly once, the email at most once
 * and never silently twice, no finished model step is called again, and the person sees
 * one whole answer, no error.
 */
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentProcess,
  agentsAhead,
  type KillPoint,
  ORDERS,
  removeBundle,
  startAgent,
  startWorld,
  twoInstances,
  type World,
} from '../support/killed-agents.js';
import { PostgresServer, requirePostgresServer } from '../support/postgres-server.js';
import { recordingChat, settled, textOf } from '../support/recording-chat.js';
import { RedisServer, requireRedisServer } from '../support/redis-server.js';
import { AGENT_ANSWER, AGENT_SCRIPT, UNCERTAIN } from '../support/scripted-agent.js';

const TOOLS = ['charge', 'email', 'saveOrder'];

interface Backend {
  readonly name: string;
  /** Starts the server; resolves to the agents' env and the reader of a chat's rows. */
  start(): Promise<{
    env: Record<string, string>;
    orders(chat: string): Promise<number>;
    stop(): Promise<void>;
  }>;
}

const redisBackend: Backend = {
  name: 'RedisStore',
  async start() {
    const server = await RedisServer.start();
    const client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    return {
      env: { AGENT_STORE: 'redis', AGENT_STORE_URL: server.url },
      orders: async (chat) =>
        (await client.lRange(ORDERS.redisList, 0, -1)).filter((row) => row.endsWith(` ${chat}`)).length,
      stop: async () => {
        client.destroy();
        await server.stop();
      },
    };
  },
};

const postgresBackend: Backend = {
  name: 'PostgresStore',
  async start() {
    const server = await PostgresServer.start();
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => {});
    await pool.query(`CREATE TABLE ${ORDERS.postgresTable} (step_key text NOT NULL, chat text NOT NULL)`);
    return {
      env: { AGENT_STORE: 'postgres', AGENT_STORE_URL: server.url },
      orders: async (chat) =>
        Number((await pool.query(`SELECT count(*) AS n FROM ${ORDERS.postgresTable} WHERE chat = $1`, [chat])).rows[0].n),
      stop: async () => {
        await pool.end();
        await server.stop();
      },
    };
  },
};

const label = (point: KillPoint | undefined) =>
  point === undefined ? 'none' : 'inside' in point ? `in ${point.inside}` : String(point.afterEvents);

/**
 * Each point is one process killed and a turn finished by the other: every boundary on one
 * store, and on the other every `SAMPLE_EVERY`-th (its first and last among them) — unless
 * `CRASH_MATRIX_EVERY_POINT=1` asks for every boundary on both.
 */
const SAMPLE_EVERY = 4;
/** Points run at once: each waits mostly for a lease to lapse. */
const AT_ONCE = 2;

function describeKilledMatrix(backend: Backend, available: boolean, every: boolean) {
  describe.skipIf(!available)(
    `journaled on ${backend.name}: a server process killed after any event of a 3-tool agent turn`,
    () => {
      let world: World;
      let store: Awaited<ReturnType<Backend['start']>>;
      let env: Record<string, string>;
      let b: AgentProcess;

      beforeAll(async () => {
        [world, store] = await Promise.all([startWorld(), backend.start()]);
        env = { ...store.env, AGENT_WORLD_URL: world.url };
        b = await startAgent(env);
      }, 60_000);
      afterAll(async () => {
        await b?.kill();
        await Promise.all([world?.close(), store?.stop(), removeBundle()]);
      });

      /** One send through A (dying at `point`) and B; the chat settled, A's end awaited. */
      async function turnThrough(a: AgentProcess, chatId: string) {
        const pair = twoInstances(a, b);
        const chat = recordingChat({ fetch: pair.fetch, id: chatId });
        await chat.sendMessage({ text: 'Charge me and confirm.' });
        await settled(chat);
        const killedBy = await Promise.race([a.ended, new Promise((resolve) => setTimeout(() => resolve('alive'), 2_000))]);
        await a.kill();
        const orders = await store.orders(chatId);
        return { chat, killedBy, eventsFromA: pair.eventsFromA(), counts: world.counts(chatId), orders };
      }

      it('charges and writes once, never emails twice unknowingly, calls no finished model step again, and shows one whole answer', async () => {
        const clean = await turnThrough(await startAgent(env), 'clean');
        expect(textOf(clean.chat.messages.at(-1))).toBe(AGENT_ANSWER);
        expect(clean.counts.modelCalls).toEqual([1, 1, 1, 1]);
        // The events of a whole answer, counted as A's kill switch counts them.
        const events = clean.eventsFromA;
        expect(events).toBeGreaterThan(20);

        const boundaries = Array.from({ length: events - 1 }, (_, index) => index + 1).filter(
          (after) => every || after % SAMPLE_EVERY === 1 || after === events - 1,
        );
        const points: KillPoint[] = [
          ...boundaries.map((afterEvents) => ({ afterEvents })),
          ...TOOLS.map((inside) => ({ inside })),
        ];
        const agents = agentsAhead(env, points, AT_ONCE + 1);
        const turns: Awaited<ReturnType<typeof turnThrough>>[] = [];
        const started = performance.now();
        try {
          // AT_ONCE points at a time, each its own chat (the API and the rows count per chat).
          let next = 0;
          const worker = async () => {
            for (let index = next++; index < points.length; index = next++) {
              turns[index] = await turnThrough(await agents.take(index), `point-${index}`);
            }
          };
          await Promise.all(Array.from({ length: AT_ONCE }, worker));
        } finally {
          await agents.close();
        }
        const perPoint = (performance.now() - started) / points.length;
        const rows: string[] = [];
        let uncertainEmails = 0;
        let cutModelSteps = 0;
        for (const [index, point] of points.entries()) {
          const where = `${backend.name}, killed at ${label(point)}`;
          const turn = turns[index]!;
          const { counts } = turn;
          const modelCalls = counts.modelCalls.reduce((sum, calls) => sum + calls, 0);
          const assistant = turn.chat.messages.at(-1);
          const email = assistant?.parts.find((part) => part.type === 'tool-email');
          const emailUncertain = email !== undefined && 'state' in email && email.state === 'output-error';
          rows.push(
            [
              label(point).padStart(12),
              String(modelCalls).padStart(5),
              String(counts.chargeRequests).padStart(7),
              String(counts.charges).padStart(7),
              String(counts.emails).padStart(6),
              String(turn.orders).padStart(4),
              (emailUncertain ? 'email uncertain' : 'whole').padStart(15),
            ].join(' │ '),
          );
          expect(turn.killedBy, where).toBe('SIGKILL');
          // The kill landed on the boundary: the client had exactly the events before it from A.
          if ('afterEvents' in point) expect(turn.eventsFromA, where).toBe(point.afterEvents);
          expect(turn.chat.status, where).toBe('ready');
          expect(turn.chat.error, where).toBeUndefined();
          expect(counts.charges, where).toBe(1); // the key-honoring tool: exactly one charge
          expect(turn.orders, where).toBe(1); // the database write: exactly one row
          expect(counts.emails, where).toBeLessThanOrEqual(1); // never a second email
          // A model step that finished is never called again; the one cut mid-stream is, once.
          expect(counts.modelCalls.length, where).toBe(AGENT_SCRIPT.length);
          expect(Math.max(...counts.modelCalls), where).toBeLessThanOrEqual(2);
          expect(modelCalls - AGENT_SCRIPT.length, where).toBeLessThanOrEqual(1);
          if (modelCalls > AGENT_SCRIPT.length) cutModelSteps += 1;
          if (emailUncertain) {
            // Nobody can know whether it went out: the model and the person are told so.
            uncertainEmails += 1;
            expect(email, where).toMatchObject({ errorText: expect.stringMatching(UNCERTAIN) });
          } else {
            expect(email, where).toMatchObject({ state: 'output-available', output: { sent: true } });
            expect(counts.emails, where).toBe(1);
          }
          expect(textOf(assistant), where).toBe(AGENT_ANSWER);
          expect(turn.chat.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
          for (const shown of turn.chat.recorded.shown) expect(AGENT_ANSWER.startsWith(shown), where).toBe(true);
        }
        console.log(
          [
            `killed-process crash matrix on ${backend.name}: ${points.length} points (SIGKILL after ${every ? 'each' : `every ${SAMPLE_EVERY}th`} of the answer's ${events} events but the last, and inside each tool after its effect), ${perPoint.toFixed(0)} ms per point;`,
            `  0 duplicate charges, rows or emails; ${uncertainEmails} email(s) of unknown outcome, each surfaced; model calls per point ${AGENT_SCRIPT.length} steps, + 1 (the step cut mid-stream) at ${cutModelSteps} points`,
            '   killed at │ model │ charge requests │ charges │ emails │ rows │ outcome',
            ...rows,
          ].join('\n'),
        );
      }, 240_000);
    },
  );
}

describeKilledMatrix(redisBackend, requireRedisServer(), true);
describeKilledMatrix(postgresBackend, requirePostgresServer(), process.env.CRASH_MATRIX_EVERY_POINT === '1');
