/**
 * `journaled(ctx, { model, tools })`: a `streamText` agent turn whose producer dies after
 * its tool ran — the tool runs once, the model is called again only for the step that
 * was cut, and the person sees one uninterrupted answer.
 */
import { describe, expect, it } from 'vitest';
import { runAgentTurn, type ScriptedStep } from '../support/agent-rig.js';
import { textOf } from '../support/recording-chat.js';

const SCRIPT: ScriptedStep[] = [
  { text: 'Charging your card for 5 euros. ', call: { tool: 'charge', input: { amount: 5 } } },
  { text: 'Done: the receipt is r-1, and your order ships today. Anything else? ' },
  { text: 'unused' },
];

/** The `charge` tool, keeping each amount it charged in `charges`. */
const chargeInto = (charges: number[]) => ({
  charge: async ({ amount }: Record<string, unknown>) => {
    charges.push(amount as number);
    return { receipt: 'r-1' };
  },
});

/** The tool's output went out and step 2 began streaming its text: then the producer dies. */
const stepTwoBegan = (types: readonly string[]): boolean => {
  const output = types.indexOf('tool-output-available');
  return output !== -1 && types.slice(output).filter((type) => type === 'text-delta').length >= 3;
};

describe('journaled: a streamText turn with a charge tool, its producer crashed after the tool', () => {
  it('runs the tool once, calls the model again only for the cut step, and the chat shows one whole answer: no error, no restart, no text twice', async () => {
    const charges: number[] = [];
    const turn = await runAgentTurn({ script: SCRIPT, tools: chargeInto(charges), crashWhen: stepTwoBegan });

    expect(turn.crashed).toBe(true);
    expect(charges).toEqual([5]); // the tool ran once
    // Step 1 once, step 2 cut and called again: 2 + 1 cut step.
    expect(turn.counts.modelCalls).toBe(3);
    expect(turn.chat.status).toBe('ready');
    expect(turn.chat.error).toBeUndefined();
    expect(turn.answer).toHaveLength(1);
    const whole = SCRIPT[0]!.text + SCRIPT[1]!.text;
    expect(textOf(turn.answer[0])).toBe(whole);
    const tool = turn.answer[0]!.parts.find((part) => part.type === 'tool-charge');
    expect(tool).toMatchObject({ state: 'output-available', output: { receipt: 'r-1' } });
    // Every frame the person saw was a prefix of the answer: nothing shown twice, nothing taken back.
    for (const shown of turn.state.shown) expect(whole.startsWith(shown)).toBe(true);
    expect(turn.wire).not.toContain('answer-once.restart');
    // The re-run took the model step and the tool call from the journal.
    const replayed = turn.events.filter((event) => event.type === 'step' && event.outcome === 'replayed');
    expect(replayed.map((event) => (event.type === 'step' ? event.kind : undefined))).toEqual(['model', 'tool']);
  });

  it('shows the restart in place when the model, called again for the cut step, answers otherwise: no error, the tool still once', async () => {
    const charges: number[] = [];
    const turn = await runAgentTurn({
      script: [SCRIPT[0]!, { ...SCRIPT[1]!, again: 'Done, receipt r-1: it ships today. ' }, SCRIPT[2]!],
      tools: chargeInto(charges),
      crashWhen: stepTwoBegan,
    });

    expect(charges).toEqual([5]);
    expect(turn.counts.modelCalls).toBe(3);
    expect(turn.wire).toContain('answer-once.restart'); // the re-run departed: the server restarted the answer
    expect(turn.chat.status).toBe('ready');
    expect(turn.chat.error).toBeUndefined();
    expect(turn.answer).toHaveLength(1);
    expect(textOf(turn.answer[0])).toBe(`${SCRIPT[0]!.text}Done, receipt r-1: it ships today. `);
    // The first step stayed on screen throughout: only the cut step was taken back.
    const first = turn.state.shown.findIndex((shown) => shown.startsWith(SCRIPT[0]!.text));
    expect(first).toBeGreaterThan(-1);
    for (const shown of turn.state.shown.slice(first)) expect(shown.startsWith(SCRIPT[0]!.text)).toBe(true);
    expect(turn.answer[0]!.parts.filter((part) => part.type === 'tool-charge')).toHaveLength(1);
  });
});
