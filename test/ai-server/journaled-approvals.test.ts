/**
 * `journaled(ctx, …).transform`: a tool approval's id derived from the intent. The turn
 * asks before it charges (`needsApproval`); its producer dies after the approval request
 * went out, and the intent runs again on another instance — which asks for the same
 * approval under the same id, so readers see one uninterrupted answer and the approval a
 * tab may already have answered is the one that counts.
 */
import { describe, expect, it } from 'vitest';
import { approvalId } from '../../src/ai-server/approval-ids.js';
import { runAgentTurn, type ScriptedStep } from '../support/agent-rig.js';

const SCRIPT: ScriptedStep[] = [
  {
    text: 'I will charge your card 5 euros, once you say so. ',
    call: { tool: 'charge', input: { amount: 5 } },
    finishAfterMs: 200, // the approval request is out long before the step ends
  },
  { text: 'Charged. ' },
];

/** The approval ids of the `tool-approval-request` chunks on the wire, in order. */
const approvalIdsOn = (wire: string): string[] =>
  [...wire.matchAll(/"type":"tool-approval-request","approvalId":"([^"]+)"/g)].map((match) => match[1]!);

describe('journaled: a tool that needs approval, its producer crashed after the approval request went out', () => {
  it('asks again under the same approval id: the chat and the stored answer every other tab reads ask for one approval, the tool not run', async () => {
    let charges = 0;
    const turn = await runAgentTurn({
      script: SCRIPT,
      tools: { charge: async () => ({ receipt: `r-${++charges}` }) },
      needsApproval: ['charge'],
      crashWhen: (types) => types.includes('tool-approval-request'),
    });

    expect(turn.crashed).toBe(true);
    // The step had not ended: the re-run called the model again for it, and it asked for the same call.
    expect(turn.counts.modelCalls).toBe(2);
    expect(turn.effects).toEqual({ charge: 0 });
    expect(turn.wire).not.toContain('answer-once.restart');
    const ids = approvalIdsOn(turn.wire);
    expect(ids).toHaveLength(1);
    expect(turn.chat.status).toBe('ready');
    expect(turn.chat.error).toBeUndefined();
    const message = turn.answer.at(-1)!;
    const part = message.parts.find((p) => p.type === 'tool-charge');
    expect(part).toMatchObject({ state: 'approval-requested', approval: { id: ids[0] } });
    // What a second tab, a reload or a replay gets: the re-run's answer, asking under the same id.
    const requestId = message.id.slice('answer-'.length);
    const stored = await turn.fetch(`http://127.0.0.1:9/api/status/${requestId}`);
    expect(stored.status).toBe(200);
    expect(approvalIdsOn(await stored.text())).toEqual(ids);
  });

  it('derives the id from the intent and the tool call: 41 characters fit to name an intent, another for another call or intent', async () => {
    const id = await approvalId('01J9ZQ4V6M8N2P3R5S7T9V1W3X', 'call-1');
    expect(id).toMatch(/^approval-[A-Za-z0-9_-]{32}$/);
    expect(await approvalId('01J9ZQ4V6M8N2P3R5S7T9V1W3X', 'call-1')).toBe(id);
    expect(await approvalId('01J9ZQ4V6M8N2P3R5S7T9V1W3X', 'call-2')).not.toBe(id);
    expect(await approvalId('01J9ZQ4V6M8N2P3R5S7T9V1W3Y', 'call-1')).not.toBe(id);
  });
});
