import type { SendState } from 'answer-once/react';
import type { ChatQuestion } from './api.js';
import type { Turn } from './history.js';

/** A question sent offline, waiting in the outbox for a connection. */
export interface OutboxedQuestion {
  readonly id: string;
  readonly question: string;
}

export interface TranscriptProps {
  readonly turns: readonly Turn[];
  /** The intent in flight or failed, if any. */
  readonly pending: SendState<string, ChatQuestion>;
  /** Messages sent while an answer streams, waiting for it to end. */
  readonly queued: readonly string[];
  /** Questions sent offline and not answered yet, in the order they were sent (the pending one among them). */
  readonly outboxed: readonly OutboxedQuestion[];
  readonly onRetry: () => void;
}

/** What the pending answer bubble says in each state of the send. */
function pendingLabel(state: SendState<string, ChatQuestion>): string {
  switch (state.status) {
    case 'retrying':
      return `retrying (${state.retry.number}/${state.retryLimit ?? '?'})…`;
    case 'waiting':
      return 'still generating…';
    case 'streaming':
      return 'writing…';
    case 'offline':
      return `waiting for a connection · ${state.queued} queued`;
    default:
      return 'thinking…';
  }
}

function shortId(id: string): string {
  return `${id.slice(0, 6)}…${id.slice(-4)}`;
}

export function Transcript({ turns, pending, queued, outboxed, onRetry }: TranscriptProps) {
  const showPending = pending.status !== 'idle' && pending.status !== 'answered';
  // The pending send shows in its place among the questions sent offline (it may be one of them).
  const before = outboxed.findIndex((q) => q.id === pending.requestId);
  const waiting = (from: number, to: number) =>
    outboxed.slice(from, to).map((q) => (
      <article key={q.id} className="turn" data-testid="outboxed">
        <p className="bubble user">{q.question}</p>
        <p className="queued-note">waiting in the outbox</p>
      </article>
    ));
  if (turns.length === 0 && !showPending && queued.length === 0 && outboxed.length === 0) {
    return (
      <section className="transcript empty" aria-live="polite">
        <h2>Same question sent twice: answered once.</h2>
        <p>
          Every message is one <em>intent</em> with one request ID. Double-click send, drop the response, or reload
          mid-answer: the model runs once and you get exactly one answer.
        </p>
      </section>
    );
  }
  return (
    <section className="transcript" aria-live="polite">
      {turns.map((turn) => (
        <article key={turn.id} className="turn">
          <p className="bubble user">{turn.question}</p>
          <div className="bubble assistant" data-testid="answer" data-request-id={turn.id}>
            <p className="text">{turn.answer || '(stopped before the first word)'}</p>
            <p className="meta">
              {turn.stopped && (
                <span
                  className="badge stopped"
                  data-testid="stopped-badge"
                  title="Stopped on the server: this is all of it."
                >
                  stopped
                </span>
              )}
              {turn.replayed && (
                <span
                  className="badge replayed"
                  data-testid="replayed-badge"
                  title="The server replayed its stored answer: no second model call."
                >
                  already answered
                </span>
              )}
              <span className="id" title={turn.id}>
                intent {shortId(turn.id)}
                {turn.attempts > 1 && ` · ${turn.attempts} attempts`}
                {!!turn.reconnects && ` · stream resumed ×${turn.reconnects}`}
                {turn.call !== undefined && ` · model call #${turn.call}`}
              </span>
            </p>
          </div>
        </article>
      ))}
      {waiting(0, before === -1 ? outboxed.length : before)}
      {showPending && (
        <article className="turn" data-testid="pending">
          {pending.json && <p className="bubble user">{pending.json.content}</p>}
          {pending.status === 'failed' ? (
            <div className="bubble assistant failed" role="alert">
              <p className="text">Not answered: {pending.error.message}</p>
              <p className="meta">
                <button type="button" className="retry" data-testid="retry" onClick={onRetry}>
                  Try again (same intent)
                </button>
              </p>
            </div>
          ) : pending.text ? (
            <div
              className="bubble assistant streaming"
              data-testid="status"
              data-state={pending.status}
              data-request-id={pending.requestId}
            >
              <p className="text" data-testid="streaming-text">
                {pending.text}
                <span className="caret" aria-hidden="true" />
              </p>
              {pending.status !== 'streaming' && <p className="meta">{pendingLabel(pending)}</p>}
            </div>
          ) : (
            <div className="bubble assistant status" data-testid="status" data-state={pending.status}>
              <span className="dots" aria-hidden="true">
                <i />
                <i />
                <i />
              </span>
              <span>{pendingLabel(pending)}</span>
            </div>
          )}
        </article>
      )}
      {before !== -1 && waiting(before + 1, outboxed.length)}
      {queued.map((question, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the same question may be queued twice; order is identity here
        <article key={index} className="turn queued" data-testid="queued">
          <p className="bubble user">{question}</p>
          <p className="queued-note">
            {pending.status === 'failed'
              ? 'queued · sent once the message above is answered (try it again)'
              : 'queued · sent when the answer above ends'}
          </p>
        </article>
      ))}
    </section>
  );
}
