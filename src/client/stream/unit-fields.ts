/**
 * What one unit of an answer-once event stream says about itself (PROTOCOL.md § 14.4,
 * § 14.5, § 14.7): whether it is one of the protocol's markers, and the position its
 * `id` names. Only the units the protocol defines are markers, so a model's own text
 * can never pose as one (the server frames every event of the answer with a position
 * id; a handler's `event: answer-once.error` is body like any other event):
 *
 * - the **error marker**: `event: answer-once.error` and no `id` field at all;
 * - the **restart marker**: `event: answer-once.restart`, its data `{"generation":G}`,
 *   its id `G.0`;
 * - anything else — above all an event with `id: G.N`, N > 0 — is body.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  ERROR_EVENT,
  formatPosition,
  RESTART_EVENT,
  restartGeneration,
  restartMarkerText,
} from '../../core/stream-events.js';
import { parseCount } from '../../core/stream-protocol.js';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;

export type Marker =
  | { readonly kind: 'error'; readonly code: string | undefined; readonly status: number | undefined }
  | { readonly kind: 'restart'; readonly generation: number };

export interface UnitPosition {
  readonly generation: number;
  readonly offset: number;
}

function json(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The one event a unit dispatches, parsed alone (the fields a unit holds do not depend on
 * the ones before it). The unit is whole, so a CR that ends it ends its blank line; a
 * parser that sees no more (eventsource-parser 3, the AI SDK's) waits for an LF after it,
 * which we add: CR LF is the same line end.
 */
function eventOf(unit: Uint8Array): EventSourceMessage | undefined {
  let found: EventSourceMessage | undefined;
  const text = new TextDecoder().decode(unit);
  createParser({ onEvent: (message) => (found = message) }).feed(text.endsWith('\r') ? `${text}\n` : text);
  return found;
}

/** The marker `unit` is, or `undefined` when it is body. */
export function markerOf(unit: Uint8Array): Marker | undefined {
  const message = eventOf(unit);
  if (message?.event === ERROR_EVENT && message.id === undefined) {
    const { code, status } = json(message.data);
    return {
      kind: 'error',
      code: typeof code === 'string' ? code : undefined,
      status: typeof status === 'number' ? status : undefined,
    };
  }
  if (message?.event !== RESTART_EVENT) return undefined;
  const generation = restartGeneration(message.data);
  if (generation === undefined) return undefined;
  return message.id === formatPosition(generation, 0) ? { kind: 'restart', generation } : undefined;
}

/** Whether a line of `bytes` starting at `at` is a field: not empty, not a comment. */
function fieldAt(bytes: Uint8Array, at: number): boolean {
  const byte = bytes[at];
  return byte !== undefined && byte !== LF && byte !== CR && byte !== COLON;
}

/**
 * Whether whole units `bytes` hold a field (an event of the answer): new answer bytes,
 * as comments alone (keepalives) are not.
 */
export function hasField(bytes: Uint8Array): boolean {
  if (fieldAt(bytes, 0)) return true;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) if (fieldAt(bytes, at + 1)) return true;
  for (let at = bytes.indexOf(CR); at !== -1; at = bytes.indexOf(CR, at + 1)) if (fieldAt(bytes, at + 1)) return true;
  return false;
}

/** The position one unit's `id` field names (the last one, as an EventSource takes it), if it is one. */
export function positionOf(unit: Uint8Array): UnitPosition | undefined {
  let id: string | undefined;
  for (const line of new TextDecoder().decode(unit).split(/\r\n|\r|\n/)) {
    if (line.startsWith('id:')) id = line.slice(line.startsWith('id: ') ? 4 : 3);
  }
  const match = /^(\d+)\.(\d+)$/.exec(id ?? '');
  const generation = parseCount(match?.[1]);
  const offset = parseCount(match?.[2]);
  return generation === undefined || generation === 0 || offset === undefined ? undefined : { generation, offset };
}

/** The restart marker's bytes, as the server writes it (§ 14.5): handed on when a resumed body restarted without one. */
export function restartMarker(generation: number): Uint8Array {
  return new TextEncoder().encode(restartMarkerText(generation));
}
