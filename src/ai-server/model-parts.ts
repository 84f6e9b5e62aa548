/**
 * What a model step's journal entry holds, and how it comes back: the parts of a streamed
 * model call (or the result of a generated one) as JSON, the usage the provider reported
 * as the journal's counters, and the part ids the UI sees, made unique per run.
 */
import type { LanguageModelMiddleware } from 'ai';
import type { Usage } from '../server/index.js';

type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;
type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type StreamResult = Awaited<ReturnType<WrapStream>>;
/** One part of a model's stream (the provider's `LanguageModelV4StreamPart`). */
export type ModelPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
/** A generated model call's result (the provider's `LanguageModelV4GenerateResult`). */
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type ProviderUsage = Extract<ModelPart, { type: 'finish' }>['usage'];

/** A part as JSON keeps it: a timestamp as its ISO string, file bytes as base64 (both forms the spec allows or revives). */
function storable(part: ModelPart): unknown {
  if (part.type === 'response-metadata' && part.timestamp instanceof Date) {
    return { ...part, timestamp: part.timestamp.toISOString() };
  }
  if ((part.type === 'file' || part.type === 'reasoning-file') && part.data.type === 'data') {
    const { data } = part.data;
    if (data instanceof Uint8Array) return { ...part, data: { ...part.data, data: base64(data) } };
  }
  return part;
}

function revived(part: ModelPart): ModelPart {
  if (part.type === 'response-metadata' && typeof part.timestamp === 'string') {
    return { ...part, timestamp: new Date(part.timestamp) };
  }
  return part;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The recorded value of a streamed model step: its parts, `ping`s left out (they show nothing). */
export function recordParts(parts: readonly ModelPart[]): unknown {
  return { parts: parts.filter((part) => part.type !== 'ping').map(storable) };
}

/** The parts a recorded streamed step replays; a `TypeError` when the entry is not one (another kind of call recorded it). */
export function replayParts(value: unknown): ModelPart[] {
  const parts = (value as { parts?: unknown } | null)?.parts;
  if (!Array.isArray(parts)) throw notRecordedAs('a streamed model call (streamText)');
  return (parts as ModelPart[]).map(revived);
}

/** The recorded value of a generated model step: what a later run needs of its result. */
export function recordResult(result: GenerateResult): unknown {
  const { request: _request, response, ...kept } = result;
  const content = kept.content.map((part) => storable(part as ModelPart));
  const timestamp = response?.timestamp instanceof Date ? response.timestamp.toISOString() : undefined;
  return {
    generated: { ...kept, content, response: response && { id: response.id, modelId: response.modelId, timestamp } },
  };
}

export function replayResult(value: unknown): GenerateResult {
  const generated = (value as { generated?: GenerateResult } | null)?.generated;
  if (generated === undefined || !Array.isArray(generated.content))
    throw notRecordedAs('a generated model call (generateText)');
  const timestamp = generated.response?.timestamp as unknown;
  return typeof timestamp === 'string'
    ? { ...generated, response: { ...generated.response, timestamp: new Date(timestamp) } }
    : generated;
}

function notRecordedAs(what: string): TypeError {
  return new TypeError(
    `answer-once/ai/server: this model step was recorded by another kind of call than ${what}; a run must call its model the same way every time.`,
  );
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The provider's usage as the journal's counters; `undefined` (unknown, never 0) when it reported none. */
export function usageOf(usage: ProviderUsage | undefined): Usage | undefined {
  if (usage === undefined) return undefined;
  const counters = {
    inputTokens: usage.inputTokens?.total,
    outputTokens: usage.outputTokens?.total,
    cachedInputTokens: usage.inputTokens?.cacheRead,
    cacheWriteInputTokens: usage.inputTokens?.cacheWrite,
    reasoningTokens: usage.outputTokens?.reasoning,
  };
  const known = Object.entries(counters).filter((entry): entry is [string, number] => isCount(entry[1]));
  return known.length === 0 ? undefined : Object.fromEntries(known);
}

/**
 * Gives each text and reasoning part of a model step its own id, `<step>.<n>` (`step`: the
 * step's place in the conversation, its prompt's length). Providers reuse ids across steps
 * (a content block's index: `0` in every step), and `streamText` then mints a random one
 * for the repeat — which a re-run could never reproduce. Derived ids make every run of the
 * intent name the parts alike.
 */
export function partIds(step: number): (part: ModelPart) => ModelPart {
  const open = new Map<string, string>();
  let count = 0;
  return (part) => {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        count += 1;
        const id = `${step}.${count}`;
        open.set(`${part.type[0]}:${part.id}`, id);
        return { ...part, id };
      }
      case 'text-delta':
      case 'text-end':
      case 'reasoning-delta':
      case 'reasoning-end': {
        const id = open.get(`${part.type[0]}:${part.id}`) ?? part.id;
        if (part.type.endsWith('-end')) open.delete(`${part.type[0]}:${part.id}`);
        return { ...part, id };
      }
      default:
        return part;
    }
  };
}
