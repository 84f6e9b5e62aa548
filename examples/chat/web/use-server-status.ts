import { useCallback, useEffect, useState } from 'react';
import type { TroubleMode } from '../trouble.js';
import { armTrouble, fetchStats, fetchTrouble, type Stats } from './api.js';

export interface ServerStatus {
  readonly stats: Stats | undefined;
  readonly trouble: TroubleMode;
  /** Arms a fault for the next chat request (the server applies it, then disarms). */
  readonly setTrouble: (mode: TroubleMode) => void;
  /** Re-reads the counters and the armed fault now. */
  readonly refresh: () => void;
}

const REFRESH_MS = 1000;

/** The server's counters and trouble switch, refreshed every second and on demand. */
export function useServerStatus(): ServerStatus {
  const [stats, setStats] = useState<Stats>();
  const [trouble, setTroubleState] = useState<TroubleMode>('none');

  const refresh = useCallback(() => {
    fetchStats().then(setStats, () => undefined);
    fetchTrouble().then(setTroubleState, () => undefined);
  }, []);

  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const setTrouble = useCallback((mode: TroubleMode) => {
    setTroubleState(mode);
    armTrouble(mode).then(setTroubleState, () => undefined);
  }, []);

  return { stats, trouble, setTrouble, refresh };
}
