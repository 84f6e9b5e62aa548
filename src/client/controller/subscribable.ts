/**
 * A minimal observable base: listeners in a Set, `subscribe` returns its own undo.
 * Framework-free on purpose: React's `useSyncExternalStore`, a Vue `shallowRef` or a
 * plain callback can all sit on top of it.
 */
export type Listener = () => void;

export class Subscribable<TListener extends (...args: never[]) => void = Listener> {
  protected readonly listeners = new Set<TListener>();

  /** Adds `listener`; the returned function removes it again (idempotent). */
  subscribe = (listener: TListener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };
}
