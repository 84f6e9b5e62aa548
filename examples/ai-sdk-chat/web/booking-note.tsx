import type { ToolUIPart } from 'ai';

/** A `bookTable` call as the page shows it, under the answer: booking, booked, or not known. */
export function BookingNote({ part }: { part: ToolUIPart }) {
  const { people, time } = (part.input ?? {}) as { people?: number; time?: string };
  if (part.state === 'output-available') {
    const { table, confirmation } = part.output as { table?: number; confirmation?: string };
    return (
      <span className="booking done" data-testid="booking" data-state="booked">
        ✓ booked: table {table} for {people} at {time} · {confirmation}
      </span>
    );
  }
  if (part.state === 'output-error') {
    // The journal found the call started without an outcome: the producer died inside it.
    const unknown = /may or may not have happened/.test(part.errorText);
    return (
      <span className="booking unknown" data-testid="booking" data-state={unknown ? 'unknown' : 'failed'}>
        {unknown
          ? '⚠ outcome unknown: the server died while booking. answer-once did not book again (the restaurant takes no key), so there is at most one booking.'
          : `✗ not booked: ${part.errorText}`}
      </span>
    );
  }
  return (
    <span className="booking" data-testid="booking" data-state="booking">
      booking a table{people ? ` for ${people}` : ''}
      {time ? ` at ${time}` : ''}…
    </span>
  );
}
