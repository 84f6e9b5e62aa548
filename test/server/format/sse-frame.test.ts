/**
 * The server's own event framing (PROTOCOL.md § 14.4): each event's id names the offset
 * just after the event, its own id line included, wherever the event starts.
 */
import { describe, expect, it } from 'vitest';
import { frameEvent } from '../../../src/server/format/sse-frame.js';

const decoder = new TextDecoder();

/** The offset an event's `id: <g>.<N>` line names. */
function named(event: Uint8Array): { generation: number; offset: number } {
  const match = /\nid: (\d+)\.(\d+)\n\n$/.exec(decoder.decode(event));
  if (!match) throw new Error('no id line at the end of the event');
  return { generation: Number(match[1]), offset: Number(match[2]) };
}

describe('frameEvent', () => {
  it('names the offset just after the event, also when its own id grows a digit to reach it', () => {
    // Starts from 0 to past 10,000: the event's end crosses 100, 1,000 and 10,000 on the way,
    // where the offset's digit count is one more than the length without it suggests.
    for (const generation of [1, 42, 1_764_581_234_567]) {
      for (let start = 0; start <= 10_100; start += 1) {
        const event = frameEvent({ data: 'x' }, generation, start);
        expect(named(event)).toEqual({ generation, offset: start + event.byteLength });
      }
    }
  });
});
