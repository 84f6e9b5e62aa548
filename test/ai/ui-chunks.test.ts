/**
 * The transport's reading of a `client.fetch` body into the AI SDK's chunks, on framed
 * bytes as the server writes them: where a restart marker lands in the chunks `useChat`
 * gets (PROTOCOL.md § 14.5), and when it cannot be shown in place.
 */
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { isAnswerRestartedError } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { type PositionedChunk, uiMessageChunks } from '../../src/ai/ui-chunks.js';

const event = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`;
const restart = 'event: answer-once.restart\ndata: {"generation":2}\nid: 2.0\n\n';
const step = (text: string) => [
  event({ type: 'start-step' }),
  event({ type: 'text-start', id: 't' }),
  event({ type: 'text-delta', id: 't', delta: text }),
];
const finish = [
  event({ type: 'text-end', id: 't' }),
  event({ type: 'finish-step' }),
  event({ type: 'finish' }),
  'data: [DONE]\n\n',
];

/** The chunks' types after a restart shown in place: the old step's text, reset-step, the new step's text, the end. */
const resetInPlace = ['text-delta', 'reset-step', 'text-start', 'text-delta', 'text-end', 'finish-step', 'finish'];

async function chunksOf(units: string[]): Promise<UIMessageChunk[]> {
  const body = new Response(units.join('')).body!;
  const chunks: UIMessageChunk[] = [];
  for await (const { chunk } of uiMessageChunks(body, 'req-chunks-0000001') as unknown as AsyncIterable<PositionedChunk>)
    chunks.push(chunk);
  return chunks;
}

describe('uiMessageChunks (answer-once/ai)', () => {
  it("turns a restart after one step into reset-step, without the new run's start and first start-step", async () => {
    const chunks = await chunksOf([
      event({ type: 'start' }),
      ...step('old'),
      restart,
      event({ type: 'start' }),
      ...step('new'),
      ...finish,
    ]);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'start-step', 'text-start', ...resetInPlace]);
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.delta)).toEqual(['old', 'new']);
  });

  it("keeps the new run's metadata when it drops its start", async () => {
    const chunks = await chunksOf([
      event({ type: 'start' }),
      ...step('old'),
      restart,
      event({ type: 'start', messageMetadata: { run: 2 } }),
      ...step('new'),
      ...finish,
    ]);
    expect(chunks).toContainEqual({ type: 'message-metadata', messageMetadata: { run: 2 } });
  });

  it('shows a restart after two steps in place when the new run repeats the first: only the departing step streams again', async () => {
    const tool = [
      event({ type: 'tool-input-available', toolCallId: 'call-1', toolName: 'charge', input: {} }),
      event({ type: 'tool-output-available', toolCallId: 'call-1', output: { receipt: 'r-1' } }),
    ];
    const firstStep = [
      event({ type: 'start', messageId: 'answer-1' }),
      ...step('one'),
      event({ type: 'text-end', id: 't' }),
      ...tool,
      event({ type: 'finish-step' }),
    ];
    const chunks = await chunksOf([
      ...firstStep,
      ...step('two, so'),
      restart,
      ...firstStep,
      ...step('two, then'),
      ...finish,
    ]);
    expect(chunks.map((chunk) => chunk.type).slice(-resetInPlace.length)).toEqual(resetInPlace);
    let message: UIMessage | undefined;
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    for await (const next of readUIMessageStream({ stream })) message = next;
    expect(message?.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual(['one', 'two, then']);
    expect(message?.parts.filter((part) => part.type === 'tool-charge')).toHaveLength(1);
  });

  it('errors with AnswerRestartedError when the voided answer had two steps and the new run departs before the last (reset-step takes back one)', async () => {
    const read = chunksOf([
      event({ type: 'start' }),
      ...step('one'),
      event({ type: 'finish-step' }),
      ...step('two'),
      restart,
    ]);
    await expect(read).rejects.toSatisfy(isAnswerRestartedError);
  });
});
