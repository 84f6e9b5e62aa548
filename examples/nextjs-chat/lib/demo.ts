/**
 * The demo's own state, not part of the recipe: the mock model (it counts its calls), the
 * restaurant its tool books at, the footer's counters and the trouble switch. Kept on
 * `globalThis`, the usual Next.js way to hold one of a thing per process: routes are
 * bundled apart and `next dev` re-evaluates modules on every edit.
 */
import { DemoModel } from '../../ai-sdk-chat/model';
import { Restaurant } from '../../shared/restaurant';
import { savingsMeter } from '../../shared/savings';
import type { Stats } from '../../shared/stats';
import type { Trouble } from '../../shared/trouble';

interface DemoState {
  readonly model: DemoModel;
  readonly restaurant: Restaurant;
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
  restaurant: new Restaurant(),
  savings: savingsMeter(),
  intents: new Set(),
  requests: 0,
  cuts: 0,
  trouble: 'none',
});

export async function stats(): Promise<Stats> {
  return {
    ...(await demo.savings.read()),
    modelCalls: demo.model.calls,
    intents: demo.intents.size,
    requests: demo.requests,
    cuts: demo.cuts,
    bookings: demo.restaurant.bookings.length,
  };
}
