import type { TroubleMode } from '../trouble.js';

const CHOICES: ReadonlyArray<{ mode: TroubleMode; label: string; hint: string }> = [
  { mode: 'none', label: 'Normal', hint: 'No trouble.' },
  {
    mode: 'lose',
    label: 'Lose next response',
    hint: 'The server runs the model, stores the answer, then drops the connection.',
  },
  {
    mode: 'cut',
    label: 'Cut the stream',
    hint: 'After a few tokens the server destroys the socket: the client reconnects and the text carries on.',
  },
  { mode: '503', label: '503 next request', hint: 'The server answers 503 before running anything.' },
  {
    mode: 'slow',
    label: 'Slow model',
    hint: 'The model thinks much longer than the gateway timeout: 504, then “still generating…”, then the stream.',
  },
];

export interface TroubleSwitchProps {
  readonly value: TroubleMode;
  readonly onChange: (mode: TroubleMode) => void;
}

/** The network-trouble switch: arms one fault for the next chat request. */
export function TroubleSwitch({ value, onChange }: TroubleSwitchProps) {
  return (
    <fieldset className="trouble" aria-label="Network trouble for the next request">
      <legend>Network trouble (next request)</legend>
      <div className="segmented" role="radiogroup">
        {CHOICES.map(({ mode, label, hint }) => (
          // biome-ignore lint/a11y/useSemanticElements: a segmented control: styled buttons, radio semantics by ARIA
          <button
            key={mode}
            type="button"
            role="radio"
            aria-checked={value === mode}
            title={hint}
            data-testid={`trouble-${mode}`}
            className={value === mode ? 'segment active' : 'segment'}
            onClick={() => onChange(mode)}
          >
            {label}
          </button>
        ))}
      </div>
      <p className="hint" data-testid="trouble-hint">
        {value === 'none'
          ? 'Pick a fault: it hits your next message only.'
          : `Armed: ${CHOICES.find((choice) => choice.mode === value)?.hint}`}
      </p>
    </fieldset>
  );
}
