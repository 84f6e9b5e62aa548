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
 * The message box, the send button and, while an answer is coming, Stop. Send stays
 * enabled while a send is in flight on purpose: a second click joins the first request
 * (useSend), it costs nothing.
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
      <button data-testid="send" type="submit" className={busy ? 'send busy' : 'send'}>
        {busy ? (streaming ? 'Answering…' : 'Sending…') : 'Send'}
      </button>
      {busy && (
        <button
          data-testid="stop"
          type="button"
          className="stop"
          title="Stop the model on the server: the partial answer is kept."
          onClick={onStop}
        >
          Stop
        </button>
      )}
    </form>
  );
}
