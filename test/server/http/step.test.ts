/**
 * `ctx.step` in the handler: an intent whose run failed after a step (a crash, a 5xx) is
 * sent again by its client and runs again — and the step's effect happens once, its
 * recorded outcome serving the second run, which answers with it.
 */

import { StepUncertainError } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, untilAborted } from '../../support/server-support.js';

describe('ctx.step in createIdempotencyHandler', () => {
  it("answers a resend of a failed intent with the step's recorded outcome, the step's effect made once", async () => {
    const charges: string[] = [];
    let crash = true;
    const app = chatApp({
      work: async ({ context }) => {
        const charge = await context.step('charge', ({ key }) => {
          charges.push(key);
          return { id: `ch_${charges.length}` };
        });
        if (crash) throw new Error('the process fell over after the charge');
        return Response.json({ charge });
      },
    });
    expect((await app.handle(chatRequest())).status).toBe(500);
    crash = false;
    const resent = await app.handle(chatRequest());
    expect(resent.status).toBe(200);
    expect(await resent.json()).toEqual({ charge: { id: 'ch_1' } });
    expect(charges).toHaveLength(1);
    expect(app.calls).toHaveLength(2);
  });

  it('gives the handler StepUncertainError for a step whose run died inside it, to answer as it sees fit', async () => {
    let calls = 0;
    const app = chatApp({
      maxRunMs: 100,
      work: async ({ context }) => {
        try {
          await context.step('send-email', ({ signal }) => {
            calls += 1;
            return untilAborted(signal);
          });
          return Response.json({ sent: true });
        } catch (error) {
          if (!(error instanceof StepUncertainError)) throw error;
          return Response.json({ sent: 'unknown', step: error.step });
        }
      },
    });
    expect((await app.handle(chatRequest())).status).toBe(504);
    const resent = await app.handle(chatRequest());
    expect(await resent.json()).toEqual({ sent: 'unknown', step: 'send-email' });
    expect(calls).toBe(1);
  });
});
