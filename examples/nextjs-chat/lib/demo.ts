/**
 * The demo's own state, not part of the recipe: the mock model (it counts its calls), the
 * footer's counters and the trouble switch. Kept on `globalThis`, the usual Next.js way
 * to hold one of a thing per process: routes are bundled apart and `next dev`
 * re-evaluates modules on every edit.
 */
import { DemoModel } from '../../ai-sdk-chat/model';
import type { Stats, Trouble } from '../../ai-sdk-chat/web/use-server';
import { savingsMeter } from '../../shared/savings';

interface DemoState {
  readonly model: DemoModel;
  /** Model calls and tokens avoided, from answer-once/otel's instruments (the handler's `onEvent`). */
  readonly savings: ReturnType<typeof savingsMeter>;
  readonly intents: Set<string>;
  requests: number;
  cuts: number;
  trouble: Trouble;
}

const shared = globalThis as typeof globalThis & { answerOnceDemo?: DemoState };

export const demo: DemoState = (shared.answerOnceDemo ??= {
  model: new DemoModel(Number(process.env.TOKEN_DELAY_MS ?? 60)),
  savings: savingsMeter(),
  intents: new Set(),
  requests: 0,
  cuts: 0,
  trouble: 'none',
});

export async function stats(): Promise<Stats> {
  const { avoidedCalls, avoidedTokens } = await demo.savings.read();
  return {
    modelCalls: demo.model.calls,
    intents: demo.intents.size,
    requests: demo.requests,
    cuts: demo.cuts,
    avoidedCalls,
    avoidedTokens,
  };
}
