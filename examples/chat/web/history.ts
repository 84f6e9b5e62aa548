/**
 * The conversation so far (answered turns only), kept in localStorage so a reload — and
 * every other tab of the page — shows it. The pending turn is not stored here: the
 * client's storage adapter keeps the pending intent, and `useSend(..., { resume: true })`
 * finishes it (in a second tab, by following the first tab's stream).
 */
export interface Turn {
  /** The intent's requestId: one turn per intent. */
  readonly id: string;
  readonly question: string;
  readonly answer: string;
  /** The answer was a stored one replayed: no model call was made for this delivery. */
  readonly replayed: boolean;
  /** The model call that produced the answer (as the answer names it), if known. */
  readonly call: number | undefined;
  /** The answer was stopped (the Stop button): what it holds is all there is. */
  readonly stopped: boolean;
  /** Requests the client made for this intent (1 unless it had to retry). */
  readonly attempts: number;
  /** Times the answer's stream broke and carried on from its last event (a cut). */
  readonly reconnects?: number;
}

const KEY = 'answer-once-demo:turns';

export function loadTurns(): readonly Turn[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(parsed) ? (parsed as Turn[]) : [];
  } catch {
    return [];
  }
}

export function saveTurns(turns: readonly Turn[]): void {
  localStorage.setItem(KEY, JSON.stringify(turns));
}

/** Calls `listener` with the turns whenever another tab saved them; returns the unsubscribe. */
export function onOtherTabTurns(listener: (turns: readonly Turn[]) => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key === KEY) listener(loadTurns());
  };
  addEventListener('storage', onStorage);
  return () => removeEventListener('storage', onStorage);
}

/** `mine` with the turns of `theirs` it lacks, in their order. */
export function mergeTurns(mine: readonly Turn[], theirs: readonly Turn[]): readonly Turn[] {
  return theirs.reduce(addTurn, mine);
}

/** Appends `turn` unless a turn of the same intent is already there. */
export function addTurn(turns: readonly Turn[], turn: Turn): readonly Turn[] {
  return turns.some((t) => t.id === turn.id) ? turns : [...turns, turn];
}
