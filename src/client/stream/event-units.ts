/**
 * Reads an answer-once event stream (PROTOCOL.md § 14.4) unit by unit, with
 * `eventsource-parser` (the HTML Standard's rules), so a resumable body hands its reader
 * only whole units and always knows its position: the offset just after the last unit it
 * handed on. A unit is written back exactly as § 14.4 frames it (`event:`, `data:` lines,
 * `id:`, blank line), so the bytes out are the server's bytes. The markers are told
 * apart here: the restart and error markers take no offsets (§ 14.1) and are reported,
 * never counted; the stop marker is part of the body.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { ERROR_EVENT, RESTART_EVENT } from '../../core/stream-events.js';
import { parsePosition, type Position } from '../../core/stream-protocol.js';

const encoder = new TextEncoder();

export interface EventUnitsSink {
  /** One whole unit of the answer body; `position` is just after it. */
  unit(bytes: Uint8Array, position: Position, message: EventSourceMessage | undefined): void;
  /** The restart marker: the answer starts again as `generation`; `marker` is its bytes. */
  restart(generation: number, marker: Uint8Array): void;
  /** The error marker: this reader's answer ends here (§ 14.7). */
  error(data: { code?: string; status?: number }): void;
}

function frame(message: EventSourceMessage): Uint8Array {
  let text = message.event === undefined ? '' : `event: ${message.event}\n`;
  for (const line of message.data.split('\n')) text += `data: ${line}\n`;
  if (message.id !== undefined) text += `id: ${message.id}\n`;
  return encoder.encode(`${text}\n`);
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
 * One response's worth of parsing: a new connection starts a new instance (its first
 * byte is a unit boundary), carrying on from the position the last one reached.
 */
export class EventUnits {
  #generation: number;
  #offset: number;
  readonly #sink: EventUnitsSink;
  readonly #decoder = new TextDecoder('utf-8');
  readonly #parser: EventSourceParser;

  constructor(from: Position, sink: EventUnitsSink) {
    this.#generation = from.generation;
    this.#offset = from.offset;
    this.#sink = sink;
    this.#parser = createParser({
      onEvent: (message) => this.#event(message),
      onComment: (comment) => this.#unit(encoder.encode(`:${comment}\n\n`), undefined),
      onRetry: (retry) => this.#unit(encoder.encode(`retry: ${retry}\n\n`), undefined),
    });
  }

  get position(): Position {
    return { generation: this.#generation, offset: this.#offset };
  }

  write(chunk: Uint8Array): void {
    this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The connection ended: an unterminated last block is dropped, as an EventSource would. */
  end(): void {
    this.#parser.feed(this.#decoder.decode());
  }

  #event(message: EventSourceMessage): void {
    if (message.event === RESTART_EVENT) {
      const generation = Number(json(message.data).generation);
      const at = parsePosition(message.id);
      const next = Number.isSafeInteger(generation) && generation > 0 ? generation : at?.generation;
      if (next === undefined) return;
      this.#generation = next;
      this.#offset = 0;
      this.#sink.restart(next, frame(message));
      return;
    }
    if (message.event === ERROR_EVENT) {
      const data = json(message.data);
      this.#sink.error({
        ...(typeof data.code === 'string' && { code: data.code }),
        ...(typeof data.status === 'number' && { status: data.status }),
      });
      return;
    }
    this.#unit(frame(message), message);
  }

  #unit(bytes: Uint8Array, message: EventSourceMessage | undefined): void {
    // The server's id is the truth about offsets; counting is the fallback (ids that
    // are not positions, units without one).
    const at = parsePosition(message?.id);
    this.#offset = at && at.generation === this.#generation ? at.offset : this.#offset + bytes.byteLength;
    this.#sink.unit(bytes, this.position, message);
  }
}
