import type { ReactNode } from 'react';

/**
 * A page for a hook's specs: a button per entry of `buttons` (its key the button's text,
 * its value run on a click) and an `<output>` per entry of `outputs` (its key the test id).
 */
export function TestPage({
  buttons,
  outputs,
}: {
  buttons: Record<string, () => unknown>;
  outputs: Record<string, ReactNode>;
}) {
  return (
    <div>
      {Object.entries(buttons).map(([name, onClick]) => (
        <button key={name} type="button" onClick={() => void onClick()}>
          {name}
        </button>
      ))}
      {Object.entries(outputs).map(([id, value]) => (
        <output key={id} data-testid={id}>
          {value}
        </output>
      ))}
    </div>
  );
}
