/**
 * What a stop of an answer being read counts as confirmed: `client.stop()`'s outcome
 * `stopping` or `settled` (PROTOCOL.md § 14.8). `unknown` is not — the intent runs (its
 * answer is arriving) on a server other than the one that answered the stop, a store per
 * instance or another scope — so the `SendController` and the AI SDK transport, which stop
 * only answers they read, treat it as the {@link StopNotConfirmedError} it is.
 */
import type { ProblemDetails } from '../../core/problems.js';
import { StopNotConfirmedError } from '../errors/stop-not-confirmed-error.js';
import type { StopResult } from './stop.js';

/** `stopping`, resolved when it confirmed the stop; a {@link StopNotConfirmedError} for `unknown`. */
export async function confirmRunning(stopping: Promise<StopResult>): Promise<StopResult> {
  const result = await stopping;
  if (result.outcome !== 'unknown') return result;
  const { response, requestId } = result;
  const data: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const problem = typeof data === 'object' && data !== null ? (data as ProblemDetails) : undefined;
  throw new StopNotConfirmedError({ response, data, problem }, { requestId, attempts: 0, polls: 0 }, false);
}
