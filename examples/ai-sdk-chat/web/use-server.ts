import { useCallback, useEffect, useState } from 'react';

export type Trouble = 'none' | 'cut' | 'break';

/** The demo server's counters (GET /api/stats). */
export interface Stats {
  readonly modelCalls: number;
  readonly intents: number;
  readonly requests: number;
  readonly cuts: number;
  readonly avoidedCalls: number;
  readonly avoidedTokens: number;
}

/** "4 calls, 1,820 tokens": what the footer says answer-once avoided so far. */
export function savingsText({ avoidedCalls, avoidedTokens }: Stats): string {
  return `${avoidedCalls.toLocaleString('en-US')} call${avoidedCalls === 1 ? '' : 's'}, ${avoidedTokens.toLocaleString('en-US')} tokens`;
}

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
