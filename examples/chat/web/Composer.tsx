import type { FormEvent, KeyboardEvent } from 'react';

export interface ComposerProps {
  readonly value: string;
  readonly busy: boolean;
  /** The answer is arriving (its words are on screen): the button says so, not "Sending…". */
  readonly streaming: boolean;
  readonly onChange: (value: string) => void;
  readonly onSend: () => void;
  /** Stops the answer being generated, on the server. */
  readonly onStop: () => void;
}

/**
 * The message box and one button: Send, or — while an answer is coming — Stop in its
 * place, as chat apps do. A double-click's second click lands on Stop; useSend ignores a
 * stop within 500 ms of the send (`stopGuardMs`), so it stops nothing. A message sent
 * while an answer comes (Enter) is queued by the page, visibly.
 */
export function Composer({ value, busy, streaming, onChange, onSend, onStop }: ComposerProps) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSend();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      onSend();
    }
  };
  return (
    <form className="composer" onSubmit={submit}>
      <textarea
        data-testid="composer"
        aria-label="Message"
        placeholder="Ask anything — then try a network fault above."
        rows={1}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {busy ? (
        <button
          data-testid="stop"
          type="button"
          className="stop"
          title={`${streaming ? 'Answering' : 'Sending'}… Stop the model on the server: the text shown is kept.`}
          onClick={onStop}
        >
          Stop
        </button>
      ) : (
        <button data-testid="send" type="submit" className="send">
          Send
        </button>
      )}
    </form>
  );
}
