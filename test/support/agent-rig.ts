/**
 * An AI SDK agent turn (`streamText` with tools, `journaled`) behind two instances of the
 * reference handler sharing one store, and a producer crash: instance A serves the send
 * until a chosen point of its answer, then dies there — its socket to the client is reset,
 * its model connection too, its tools do no more effects, and nothing of it reaches the
 * store again (so its lease lapses, as a killed process's does). Every later request goes
 * to instance B, which takes the intent over when the lease has lapsed. The client is the
 * AI SDK's own chat logic (`AbstractChat`, what `useChat` runs) over `answerOnceTransport`.
 */
import { jsonSchema, type ToolSet, tool } from 'ai';
import { type JournaledOptions, toolStep } from 'answer-once/ai/server';
import { createIdempotencyHandler, type IdempotencyEvent, MemoryStore } from 'answer-once/server';
import { recordingChat, settled } from './recording-chat.js';
import { agentTurn, type ScriptedStep, scriptedModel } from './scripted-agent.js';
import { sleep } from './sleep.js';

export type { ScriptedStep } from './scripted-agent.js';

interface Instance {
  crashed: boolean;
}

interface AgentCounts {
  modelCalls: number;
  modelStreamsEnded: number;
}

/** A tool of the rig: `effect` is what it does in the world, run only while its instance lives. */
type RigTool = (input: Record<string, unknown>, key: string) => Promise<unknown>;

export interface AgentRigOptions {
  readonly script: readonly ScriptedStep[];
  /** The tools, by name; each gets its call's input and its step key (`toolStep(options).key`). */
  readonly tools: Record<string, RigTool>;
  readonly toolSteps?: JournaledOptions['toolSteps'];
  /** Instance A dies once the events its client got so far (UI chunk types) satisfy this. */
  readonly crashWhen?: (types: readonly string[]) => boolean;
  /** Instance A dies inside this tool, after its effect and before its result is recorded. */
  readonly crashInside?: string;
  /** The tools that ask the person first (`needsApproval`): the turn ends with the approval request. */
  readonly needsApproval?: readonly string[];
}

/** A store whose calls fail once `instance` crashed: nothing of a dead instance reaches it. */
function seenBy(store: MemoryStore, instance: Instance): MemoryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        instance.crashed
          ? Promise.reject(new Error('the instance is dead'))
          : (value as (...args: unknown[]) => unknown).apply(target, args);
    },
  });
}

/** Sends one message through the crashing pair of instances; resolves when the chat settled. */
export async function runAgentTurn(options: AgentRigOptions) {
  const store = new MemoryStore();
  const a: Instance = { crashed: false };
  const b: Instance = { crashed: false };
  const counts: AgentCounts = { modelCalls: 0, modelStreamsEnded: 0 };
  /** Model calls per step of the script, across both instances. */
  const callsOf = new Map<number, number>();
  const events: IdempotencyEvent[] = [];
  const effects: Record<string, number> = Object.fromEntries(Object.keys(options.tools).map((name) => [name, 0]));
  /** Everything the client received, markers included. */
  let wire = '';

  const handlerOf = (instance: Instance) => {
    const model = scriptedModel({
      script: options.script,
      called: (index) => {
        counts.modelCalls += 1;
        const calls = (callsOf.get(index) ?? 0) + 1;
        callsOf.set(index, calls);
        return calls;
      },
      beforePart: async () => {
        await sleep(2);
        if (instance.crashed) throw new Error('the model connection was reset');
      },
      ended: () => {
        counts.modelStreamsEnded += 1;
      },
    });
    return createIdempotencyHandler({
      store: seenBy(store, instance),
      scope: () => ({ user: 'u' }),
      leaseMs: 300,
      flushMs: 5,
      onEvent: (event) => events.push(event),
      handler: async (request, ctx) => {
        const tools: ToolSet = {};
        for (const [name, effect] of Object.entries(options.tools)) {
          tools[name] = tool({
            inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
            needsApproval: options.needsApproval?.includes(name) ?? false,
            execute: async (input: Record<string, unknown>, execution) => {
              await sleep(3);
              if (instance.crashed) throw new Error('the instance is dead'); // it does nothing more
              effects[name]! += 1;
              const result = await effect(input, toolStep(execution).key);
              if (instance === a && name === options.crashInside) crash();
              if (instance.crashed) throw new Error('the instance is dead'); // its result is never recorded
              return result;
            },
          });
        }
        return agentTurn(request, ctx, {
          model,
          tools,
          ...(options.toolSteps && { toolSteps: options.toolSteps }),
          maxSteps: options.script.length,
          // A dead instance's failures are its own (the SDK logs the others, as an app's server does).
          onError: (error) => {
            if (!instance.crashed) console.error(error);
          },
        });
      },
    });
  };
  /** Errors the body A's client reads (set while one is open): its socket was reset. */
  let resetSocket: (() => void) | undefined;
  const crash = () => {
    a.crashed = true;
    resetSocket?.();
  };
  const handleA = handlerOf(a);
  const handleB = handlerOf(b);

  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const response = await (a.crashed ? handleB : handleA)(request);
    if (!response.body) return response;
    const crashing = !a.crashed;
    const types: string[] = [];
    let pending = '';
    const decoder = new TextDecoder();
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start(controller) {
          if (crashing) resetSocket = () => controller.error(new TypeError('network error: the connection was reset'));
        },
        transform(chunk, controller) {
          const text = decoder.decode(chunk, { stream: true });
          if (!crashing) {
            wire += text;
            return controller.enqueue(chunk);
          }
          // Event by event, so the crash lands on an event boundary.
          pending += text;
          for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
            const event = pending.slice(0, end + 2);
            pending = pending.slice(end + 2);
            wire += event;
            controller.enqueue(new TextEncoder().encode(event));
            const data = /^data: (\{.*\})$/m.exec(event)?.[1];
            if (data) types.push((JSON.parse(data) as { type: string }).type);
            if (!a.crashed && options.crashWhen?.(types)) return crash();
          }
        },
      }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };

  const chat = recordingChat({ fetch });
  await chat.sendMessage({ text: 'Charge me and confirm.' });
  await settled(chat);
  const state = chat.recorded;
  const answer = chat.messages.filter((message) => message.role === 'assistant');
  return { chat, state, answer, counts, effects, events, wire, crashed: a.crashed, fetch };
}
