import type { ToolUIPart } from 'ai';

interface BookingNoteProps {
  readonly part: ToolUIPart;
  /** useChat's `addToolApprovalResponse`: the person's answer to the approval the part asks for. */
  readonly answer: (response: { id: string; approved: boolean }) => unknown;
}

/** A `bookTable` call as the page shows it, under the answer: asking, booking, booked, declined, or not known. */
export function BookingNote({ part, answer }: BookingNoteProps) {
  const { people, time } = (part.input ?? {}) as { people?: number; time?: string };
  const table = `a table${people ? ` for ${people}` : ''}${time ? ` at ${time}` : ''}`;
  if (part.state === 'approval-requested') {
    const { id } = part.approval;
    return (
      <span className="booking asking" data-testid="booking" data-state="asking">
        Book {table}?{' '}
        <button type="button" data-testid="approve" onClick={() => answer({ id, approved: true })}>
          Approve
        </button>{' '}
        <button type="button" className="deny" data-testid="deny" onClick={() => answer({ id, approved: false })}>
          Deny
        </button>
      </span>
    );
  }
  if (part.state === 'output-denied' || (part.state === 'approval-responded' && !part.approval.approved)) {
    return (
      <span className="booking denied" data-testid="booking" data-state="denied">
        ✗ not booked: you declined
      </span>
    );
  }
  if (part.state === 'output-available') {
    const { table: number, confirmation } = part.output as { table?: number; confirmation?: string };
    return (
      <span className="booking done" data-testid="booking" data-state="booked">
        ✓ booked: table {number} for {people} at {time} · {confirmation}
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
      booking {table}…
    </span>
  );
}
