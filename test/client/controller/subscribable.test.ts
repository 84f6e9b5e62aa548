import { describe, expect, it } from 'vitest';
import { Subscribable } from '../../../src/client/controller/subscribable.js';

class Counter extends Subscribable {
  notify(): void {
    for (const listener of this.listeners) listener();
  }
}

describe('Subscribable', () => {
  it('calls each subscriber until it unsubscribes, and unsubscribing twice is harmless', () => {
    const counter = new Counter();
    const calls: string[] = [];
    const stopA = counter.subscribe(() => calls.push('a'));
    counter.subscribe(() => calls.push('b'));
    counter.notify();
    stopA();
    stopA();
    counter.notify();
    expect(calls).toEqual(['a', 'b', 'b']);
  });
});
