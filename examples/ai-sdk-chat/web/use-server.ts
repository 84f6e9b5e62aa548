import { useCallback, useEffect, useState } from 'react';
import type { Stats } from '../../shared/stats.js';
import type { Trouble } from '../../shared/trouble.js';

export type { Stats, Trouble };

/** "4 calls, 1,820 tokens": what the footer says answer-once avoided so far. */
export function savingsText({ avoidedCalls, avoidedTokens }: Stats): string {
  return `${count(avoidedCalls, 'call')}, ${avoidedTokens.toLocaleString('en-US')} tokens`;
}

/** "1 model call, 1 tool call": what re-runs took from the step journal instead of running again. */
export const replayedText = ({ replayedModelCalls, replayedToolCalls }: Stats): string =>
  `${count(replayedModelCalls, 'model call')}, ${count(replayedToolCalls, 'tool call')}`;

const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

async function json<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
  return (await answer.json()) as T;
}

/** The footer's counters and the trouble switch, refreshed every second and whenever `tick` changes. */
export function useServer(tick: unknown) {
  const [stats, setStats] = useState<Stats>();
  const [trouble, setTroubleState] = useState<Trouble>('none');
  const refresh = useCallback(() => {
    json<Stats>(fetch('/api/stats', { cache: 'no-store' })).then(setStats, () => undefined);
    json<{ trouble: Trouble }>(fetch('/api/trouble', { cache: 'no-store' })).then(
      (body) => setTroubleState(body.trouble),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    const timer = setInterval(refresh, 1000);
    return () => clearInterval(timer);
  }, [refresh]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a status change is when to re-read the counters
  useEffect(refresh, [tick, refresh]);
  const setTrouble = useCallback((next: Trouble) => {
    setTroubleState(next);
    const init = { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ trouble: next }) };
    json<{ trouble: Trouble }>(fetch('/api/trouble', init)).then(
      (body) => setTroubleState(body.trouble),
      () => undefined,
    );
  }, []);
  return { stats, trouble, setTrouble };
}
