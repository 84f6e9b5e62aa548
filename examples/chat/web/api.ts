/**
 * Where the page talks to: its own origin's `/api` by default, or another origin given
 * as `?api=http://127.0.0.1:8788/api` (the cross-origin case: CORS must expose the
 * protocol headers for the client to see replays and 202s).
 */
import type { TroubleMode } from '../trouble.js';

export interface ChatQuestion {
  readonly content: string;
}

/** The model call number an answer names ("This is model call #7"), if it does. */
export function callOf(text: string): number | undefined {
  const match = /model call #(\d+)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

export interface Stats {
  /** Model calls made: what the visitor pays for. */
  readonly modelCalls: number;
  /** Distinct intent IDs the server saw. */
  readonly intents: number;
  /** Chat requests that reached the server: retries, resends and resumes included. */
  readonly requests: number;
  /** Intents a resend of which was answered without a model call, once each: calls not paid (README, "What it saved"). */
  readonly avoidedCalls: number;
  /** The tokens those answers' model calls cost: tokens not paid again. */
  readonly avoidedTokens: number;
}

/** "4 calls, 1,820 tokens": what the footer says answer-once avoided so far. */
export function savingsText({ avoidedCalls, avoidedTokens }: Stats): string {
  return `${avoidedCalls.toLocaleString('en-US')} call${avoidedCalls === 1 ? '' : 's'}, ${avoidedTokens.toLocaleString('en-US')} tokens`;
}

export const apiBase: string = new URL(
  new URLSearchParams(location.search).get('api') ?? '/api',
  location.href,
).href.replace(/\/$/, '');

export async function fetchStats(signal?: AbortSignal): Promise<Stats> {
  const response = await fetch(`${apiBase}/stats`, { signal, cache: 'no-store' });
  if (!response.ok) throw new Error(`stats: HTTP ${response.status}`);
  return (await response.json()) as Stats;
}

export async function fetchTrouble(signal?: AbortSignal): Promise<TroubleMode> {
  const response = await fetch(`${apiBase}/trouble`, { signal, cache: 'no-store' });
  if (!response.ok) throw new Error(`trouble: HTTP ${response.status}`);
  return ((await response.json()) as { mode: TroubleMode }).mode;
}

export async function armTrouble(mode: TroubleMode): Promise<TroubleMode> {
  const response = await fetch(`${apiBase}/trouble`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ mode }),
  });
  if (!response.ok) throw new Error(`trouble: HTTP ${response.status}`);
  return ((await response.json()) as { mode: TroubleMode }).mode;
}
