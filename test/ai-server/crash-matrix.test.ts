/**
 * The crash matrix: a 4-step agent turn with three tools — a charge that forwards its step
 * key to a payments API that dedupes by it (`repeat: 'safe'`), an email nobody dedupes (the
 * default, `'never'`), and a database write looked up by its key (`reconcile`) — whose
 * producer dies after each event of its answer in turn. Whatever the point: the charge and
 * the write happen exactly once, the email at most once and, when nobody can know whether it
 * went out, the model is told so (never a silent second email); each model step that finished
 * was not called again, and the person sees one whole answer, with no error and no seam: the
 * re-run reproduces what readers had and the server continues it — save a crash before the
 * answer's first bytes were stored, whose restart is shown in place.
 */
import { describe, expect, it } from 'vitest';
import { runAgentTurn } from '../support/agent-rig.js';
import { textOf } from '../support/recording-chat.js';
import { AGENT_ANSWER, AGENT_SCRIPT, UNCERTAIN } from '../support/scripted-agent.js';

const SCRIPT = AGENT_SCRIPT;
const ANSWER = AGENT_ANSWER;

/** The world the tools act on, fresh for each crash point. */
function world() {
  const payments = new Map<string, { receipt: string }>();
  const rows = new Map<string, { order: unknown }>();
  let emails = 0;
  return {
    payments,
    rows,
    emails: () => emails,
    tools: {
      charge: async (_input: Record<string, unknown>, key: string) => {
        const charged = payments.get(key) ?? { receipt: `r-${payments.size + 1}` };
        payments.set(key, charged); // the payments API dedupes by Idempotency-Key
        return charged;
      },
      email: async () => {
        emails += 1;
        return { sent: true };
      },
      saveOrder: async ({ order }: Record<string, unknown>, key: string) => {
        rows.set(key, { order });
        return { saved: order };
      },
    },
  };
}

async function crashAt(point: { afterEvents: number } | { inside: string } | undefined) {
  const tools = world();
  const turn = await runAgentTurn({
    script: SCRIPT,
    tools: tools.tools,
    toolSteps: {
      charge: { repeat: 'safe' },
      saveOrder: {
        reconcile: ({ key }) => {
          const row = tools.rows.get(key);
          return row ? { done: true, value: { saved: row.order } } : { done: false };
        },
      },
    },
    ...(point && 'afterEvents' in point && { crashWhen: (types) => types.length >= point.afterEvents }),
    ...(point && 'inside' in point && { crashInside: point.inside }),
  });
  return { ...turn, world: tools };
}

describe('journaled: a producer crash after any event of a 3-tool agent turn', () => {
  it('charges and writes once, never emails twice unknowingly, calls no finished model step again, and shows one whole answer', async () => {
    const clean = await crashAt(undefined);
    expect(textOf(clean.answer[0])).toBe(ANSWER);
    const events = (clean.wire.match(/^data: \{/gm) ?? []).length;
    expect(events).toBeGreaterThan(30);

    const rows: string[] = [];
    let ambiguous = 0;
    let restarts = 0;
    const points = [
      ...Array.from({ length: events - 1 }, (_, index) => ({ afterEvents: index + 1 })),
      ...['charge', 'email', 'saveOrder'].map((inside) => ({ inside })),
    ];
    for (const point of points) {
      const turn = await crashAt(point);
      const k = 'inside' in point ? `in ${point.inside}` : String(point.afterEvents);
      const email = turn.answer[0]?.parts.find((part) => part.type === 'tool-email');
      // Steps found started without outcome (the write's is then reconciled, the email's told to the model).
      const uncertain = turn.events.flatMap((event) =>
        event.type === 'step' && event.outcome === 'uncertain' ? [event.step.replace('tool:', '')] : [],
      );
      const emailUnknown = uncertain.includes('email');
      const cutModelSteps = turn.counts.modelCalls - SCRIPT.length;
      rows.push(
        [
          k.padStart(12),
          String(turn.counts.modelCalls).padStart(5),
          String(turn.world.payments.size).padStart(7),
          String(turn.world.emails()).padStart(6),
          String(turn.world.rows.size).padStart(5),
          (uncertain.join(',') || '-').padStart(15),
          (turn.wire.includes('answer-once.restart') ? 'yes' : 'no').padStart(7),
          turn.chat.status,
        ].join(' │ '),
      );
      const where = `crash at ${k}`;
      expect(turn.crashed, where).toBe(true);
      expect(turn.chat.status, where).toBe('ready');
      expect(turn.chat.error, where).toBeUndefined();
      expect(turn.world.payments.size, where).toBe(1); // the key-honoring tool: exactly once
      expect(turn.world.rows.size, where).toBe(1); // the database write: exactly once
      expect(turn.world.emails(), where).toBeLessThanOrEqual(1); // never a silent second email
      // At most the one model step in flight when it died is called again.
      expect(cutModelSteps, where).toBeGreaterThanOrEqual(0);
      expect(cutModelSteps, where).toBeLessThanOrEqual(1);
      // An email whose outcome is unknown is told to the model and shown as such, never hidden.
      if (emailUnknown) {
        ambiguous += 1;
        expect(email, where).toMatchObject({ state: 'output-error', errorText: expect.stringMatching(UNCERTAIN) });
      } else {
        expect(email, where).toMatchObject({ state: 'output-available', output: { sent: true } });
        expect(turn.world.emails(), where).toBe(1);
      }
      expect(textOf(turn.answer[0]), where).toBe(ANSWER);
      if (turn.wire.includes('answer-once.restart')) restarts += 1;
      for (const shown of turn.state.shown) expect(ANSWER.startsWith(shown), where).toBe(true);
    }
    console.log(
      [
        `crash matrix: ${points.length} crash points (after each event but the last, and inside each tool after its effect), ${ambiguous} with the email's outcome unknown (surfaced, 0 silent duplicates), ${restarts} shown as a restart in place`,
        '    crash at │ model │ charges │ emails │ rows │       uncertain │ restart │ chat',
        ...rows,
      ].join('\n'),
    );
  }, 120_000);
});
