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
    this.onSubscribe();
    return () => {
      if (!this.listeners.delete(listener)) return;
      this.onUnsubscribe();
    };
  };

  /** True while at least one listener is attached. */
  hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Hook for subclasses: a listener was added. */
  protected onSubscribe(): void {}

  /** Hook for subclasses: a listener was removed. */
  protected onUnsubscribe(): void {}
}
