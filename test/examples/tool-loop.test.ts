/**
 * The hand-written tool loop of docs/steps.md (examples/tool-loop/agent.ts: openai-node's chat
 * completions with tools, each model call and tool call a `ctx.step`) against a fake
 * OpenAI-compatible server on loopback: a run that crashes right after the tool — it
 * throws, or its process stops and loses its lease — is run again, and the tool has run
 * once and the model been called once per step.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createIdempotencyHandler,
  type IdempotencyEvent,
  type IdempotencyStore,
  MemoryStore,
  type StepStore,
} from 'answer-once/server';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAgent, type Tools } from '../../examples/tool-loop/agent.js';
import { viewOf } from '../support/server-support.js';

/** The model: first it calls `refund_order`; once the tool's result is in, it answers. */
function completionFor(body: { messages: { role: string; content?: string }[] }): object {
  const result = body.messages.find((message) => message.role === 'tool');
  const message = result
    ? { role: 'assistant', content: `Done: ${result.content}`, refusal: null }
    : {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'refund_order', arguments: '{"orderId":"ord_42"}' } },
        ],
      };
  return {
    id: `chatcmpl-${body.messages.length}`,
    object: 'chat.completion',
    created: 1_764_581_234,
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, message, finish_reason: result ? 'stop' : 'tool_calls', logprobs: null }],
    usage: { prompt_tokens: 10 * body.messages.length, completion_tokens: 7, total_tokens: 10 * body.messages.length + 7 },
  };
}

let server: Server;
let modelCalls: number[] = [];
let openai: OpenAI;

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const body = JSON.parse(text) as Parameters<typeof completionFor>[0];
      modelCalls.push(body.messages.length);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completionFor(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  openai = new OpenAI({ apiKey: 'test', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  modelCalls = [];
});

/** The payments API the tool calls: it refunds, and remembers each Idempotency-Key it got. */
function payments(): { tools: Tools; refunds: string[] } {
  const refunds: string[] = [];
  return {
    refunds,
    tools: {
      refund_order: async ({ orderId }, idempotencyKey) => {
        refunds.push(idempotencyKey);
        return { refunded: orderId, refund: `re_${refunds.length}` };
      },
    },
  };
}

/**
 * `store`, crashing the run that holds it just after the tool's outcome is recorded: the
 * next step's start `crash()` decides the fate of (it throws, or never answers).
 */
function crashingAfterTool(memory: MemoryStore, crash: () => Promise<never>): StepStore {
  let toolRecorded = false;
  return viewOf<StepStore>(memory, {
    finishStep: async (...args) => {
      const written = await memory.finishStep(...args);
      if (args[3].includes('"refunded"')) toolRecorded = true;
      return written;
    },
    startStep: async (...args) => {
      if (toolRecorded) {
        toolRecorded = false;
        return crash();
      }
      return memory.startStep(...args);
    },
  });
}

function app(store: IdempotencyStore, tools: Tools, leaseMs = 10_000) {
  const events: IdempotencyEvent[] = [];
  const handle = createIdempotencyHandler({
    store,
    leaseMs,
    scope: () => ({ user: 'alice' }),
    onEvent: (event) => events.push(event),
    handler: async (request, ctx) => {
      const { question } = (await request.json()) as { question: string };
      return Response.json({ answer: await runAgent(openai, ctx, question, tools) });
    },
  });
  const send = () =>
    handle(
      new Request('http://app.test/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Request-Id': 'req-refund-0001' },
        body: JSON.stringify({ question: 'Refund my order ord_42, please.' }),
      }),
    );
  return { send, events };
}

const STEP_KEY = /^[A-Za-z0-9_-]{43}$/;

describe('examples/tool-loop: a hand-written openai-node tool loop on ctx.step', () => {
  it('is the code docs/steps.md shows', () => {
    const readme = readFileSync(new URL('../../docs/steps.md', import.meta.url), 'utf8');
    const agent = readFileSync(new URL('../../examples/tool-loop/agent.ts', import.meta.url), 'utf8');
    expect(readme).toContain(agent.trim());
  });

  it('runs the tool once and each model step once when the run throws right after the tool and is sent again', async () => {
    const { tools, refunds } = payments();
    const memory = new MemoryStore();
    const store = crashingAfterTool(memory, async () => {
      throw new Error('the process fell over');
    });
    const { send, events } = app(store, tools);
    expect((await send()).status).toBe(500);
    expect(modelCalls).toEqual([1]); // the first model step; the crash came before the second
    const resent = await send();
    expect(resent.status).toBe(200);
    expect(await resent.json()).toEqual({ answer: 'Done: {"refunded":"ord_42","refund":"re_1"}' });
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatch(STEP_KEY);
    // Model step 1 (1 message in), model step 2 (3 messages in): each called once.
    expect(modelCalls).toEqual([1, 3]);
    const steps = events.flatMap((event) => (event.type === 'step' ? [`${event.step} ${event.outcome}`] : []));
    expect(steps).toEqual([
      'model ran',
      'tool:refund_order ran',
      'model replayed',
      'tool:refund_order replayed',
      'model ran',
    ]);
  });

  it('runs the tool once and each model step once when the process stops after the tool and another takes over', async () => {
    const { tools, refunds } = payments();
    const memory = new MemoryStore();
    let thaw: (reason: Error) => void = () => undefined;
    const frozen = new Promise<never>((_, reject) => {
      thaw = reject;
    });
    // The first process stops dead after the tool: no next step, no more heartbeats.
    const dying = viewOf<StepStore>(
      crashingAfterTool(memory, () => frozen),
      {
        renew: async (...args) => (modelCalls.length > 0 ? 'written' : memory.renew(...args)),
      },
    );
    const first = app(dying, tools, 150);
    const dead = first.send();
    await new Promise((resolve) => setTimeout(resolve, 400)); // its lease lapses
    expect(modelCalls).toEqual([1]);
    const successor = app(memory, tools, 150);
    const answer = await successor.send();
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ answer: 'Done: {"refunded":"ord_42","refund":"re_1"}' });
    expect(refunds).toHaveLength(1);
    expect(modelCalls).toEqual([1, 3]);
    expect(successor.events).toContainEqual(expect.objectContaining({ type: 'acquired', takeover: true }));
    thaw(new Error('the first process is gone'));
    await dead; // its request ends; nothing it does now changes the answer
    expect(refunds).toHaveLength(1);
    expect(modelCalls).toEqual([1, 3]);
  });
});
