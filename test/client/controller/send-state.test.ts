import { describe, expect, it } from 'vitest';
import {
  initialSendState,
  isInFlight,
  type SendAction,
  type SendState,
  sendReducer,
} from '../../../src/client/controller/send-state.js';

type State = SendState<string, { content: string }>;

function run(actions: SendAction<string, { content: string }>[], from: State = initialSendState()): State {
  return actions.reduce(sendReducer, from);
}

const start = { type: 'start', requestId: 'intent-0001', json: { content: 'hi' } } as const;

describe('sendReducer', () => {
  it('walks sending → retrying → sending → waiting → answered with the attempt, limit and replay flag', () => {
    const steps: State[] = [];
    let state: State = initialSendState();
    for (const action of [
      start,
      { type: 'attempt', attempt: 1, retryLimit: 4 },
      { type: 'retry', retry: 1, retryLimit: 4, reason: 'network', delayMs: 300 },
      { type: 'attempt', attempt: 2, retryLimit: 4 },
      { type: 'poll', polls: 1 },
      { type: 'answer', data: 'hello', replayed: true },
    ] as const) {
      state = sendReducer(state, action);
      steps.push(state);
    }
    expect(steps.map((s) => s.status)).toEqual(['sending', 'sending', 'retrying', 'sending', 'waiting', 'answered']);
    expect(steps[2]).toMatchObject({ attempt: 1, retryLimit: 4, retry: { number: 1, reason: 'network', delayMs: 300 } });
    expect(state).toMatchObject({
      status: 'answered',
      requestId: 'intent-0001',
      json: { content: 'hi' },
      data: 'hello',
      replayed: true,
      attempt: 2,
      polls: 1,
      retry: undefined,
    });
  });

  it('keeps the requestId and limit when a failed intent is sent again, and counts that send from 0 as the client does', () => {
    const failed = run([start, { type: 'attempt', attempt: 5, retryLimit: 4 }, { type: 'fail', error: new Error('down') }]);
    expect(failed).toMatchObject({ status: 'failed', requestId: 'intent-0001', error: { message: 'down' } });

    const again = sendReducer(failed, start);
    expect(again).toMatchObject({
      status: 'sending',
      requestId: 'intent-0001',
      attempt: 0,
      retryLimit: 4,
      error: undefined,
    });
    expect(sendReducer(again, { type: 'attempt', attempt: 1 })).toMatchObject({ attempt: 1 });
  });

  it('starts a new intent from zero attempts', () => {
    const answered = run([start, { type: 'attempt', attempt: 3 }, { type: 'answer', data: 'a', replayed: false }]);
    const next = sendReducer(answered, { type: 'start', requestId: 'intent-0002' });
    expect(next).toMatchObject({ status: 'sending', requestId: 'intent-0002', attempt: 0, data: undefined });
  });

  it('ignores progress that arrives after the send settled or before one started', () => {
    const answered = run([start, { type: 'answer', data: 'a', replayed: false }]);
    for (const late of [
      { type: 'attempt', attempt: 2 },
      { type: 'retry', retry: 1, reason: 'timeout', delayMs: 1 },
      { type: 'poll' },
      { type: 'fail', error: new Error('late') },
    ] as const) {
      expect(sendReducer(answered, late)).toBe(answered);
      expect(sendReducer(initialSendState(), late)).toBe(initialSendState());
    }
  });

  it('returns to idle on reset, and a reset of idle changes nothing', () => {
    const waiting = run([start, { type: 'poll' }]);
    expect(isInFlight(waiting)).toBe(true);
    const idle = sendReducer(waiting, { type: 'reset' });
    expect(idle).toBe(initialSendState());
    expect(isInFlight(idle)).toBe(false);
    expect(sendReducer(idle, { type: 'reset' })).toBe(idle);
  });
});

describe('sendReducer, streamed', () => {
  it('goes streaming with the text so far, stays streaming while a reconnect attempts, and keeps the text once answered', () => {
    const steps = [
      start,
      { type: 'attempt', attempt: 1, retryLimit: 4 },
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'Hello' },
      { type: 'attempt', attempt: 2, retryLimit: 4 },
      { type: 'text', text: '' },
      { type: 'text', text: 'Hello, again' },
      { type: 'answer', data: 'Hello, again', replayed: false },
    ] as const;
    const states: State[] = [];
    steps.reduce<State>((state, action) => {
      const next = sendReducer(state, action);
      states.push(next);
      return next;
    }, initialSendState());
    expect(states.map((s) => s.status)).toEqual([
      'sending',
      'sending',
      'streaming',
      'streaming',
      'streaming',
      'streaming',
      'streaming',
      'answered',
    ]);
    expect(states.map((s) => s.text)).toEqual([
      undefined,
      undefined,
      'Hel',
      'Hello',
      'Hello',
      '',
      'Hello, again',
      'Hello, again',
    ]);
    expect(isInFlight(states[3]!)).toBe(true);
  });

  it('returns the same state for the same text, so subscribers are not told twice', () => {
    const streaming = run([start, { type: 'text', text: 'Hi' }]);
    expect(sendReducer(streaming, { type: 'text', text: 'Hi' })).toBe(streaming);
  });

  it('keeps the known retry limit when a retry does not name one, and takes the one it names', () => {
    const known = run([start, { type: 'attempt', attempt: 1, retryLimit: 3 }]);
    expect(sendReducer(known, { type: 'retry', retry: 1, reason: 'network', delayMs: 10 }).retryLimit).toBe(3);
    expect(sendReducer(known, { type: 'retry', retry: 1, retryLimit: 5, reason: 'network', delayMs: 10 }).retryLimit).toBe(
      5,
    );
  });

  it('counts polls that do not say their number one by one', () => {
    const polled = run([start, { type: 'poll' }, { type: 'poll' }]);
    expect(polled).toMatchObject({ status: 'waiting', polls: 2 });
    expect(sendReducer(polled, { type: 'poll', polls: 7 }).polls).toBe(7);
  });

  it('goes back to streaming when the same text arrives after a retry of the stream', () => {
    const retrying = run([start, { type: 'text', text: 'Hel' }, { type: 'retry', retry: 1, reason: 'cut', delayMs: 0 }]);
    expect(retrying).toMatchObject({ status: 'retrying', text: 'Hel' });
    expect(run([{ type: 'text', text: 'Hel' }], retrying)).toMatchObject({ status: 'streaming', text: 'Hel' });
  });

  it('answers not stopped unless the answer says so', () => {
    expect(run([start, { type: 'answer', data: 'x', replayed: false }]).stopped).toBe(false);
    expect(run([start, { type: 'answer', data: 'x', replayed: false, stopped: true }]).stopped).toBe(true);
  });

  it('keeps a stop the server did not confirm as stopError, the send going on, until the next send', () => {
    const error = new Error('stop not confirmed');
    const failed = run([start, { type: 'text', text: 'He' }, { type: 'stop-failed', error }]);
    expect(failed).toMatchObject({ status: 'streaming', text: 'He', stopError: error });
    const answered = run(
      [
        { type: 'text', text: 'Hello' },
        { type: 'answer', data: 'Hello', replayed: false },
      ],
      failed,
    );
    expect(answered).toMatchObject({ status: 'answered', stopped: false, stopError: error });
    expect(sendReducer(answered, { type: 'stop-failed', error: new Error('late') })).toBe(answered);
    expect(run([start], answered).stopError).toBeUndefined();
  });
});

describe('sendReducer, offline', () => {
  it('goes offline with the number queued (not failed, not in flight), and back to sending when it goes, same intent', () => {
    const offline = run([start, { type: 'attempt', attempt: 1 }, { type: 'queued', queued: 2 }]);
    expect(offline).toMatchObject({ status: 'offline', queued: 2, requestId: 'intent-0001', error: undefined });
    expect(isInFlight(offline)).toBe(false);
    expect(sendReducer(offline, { type: 'queued', queued: 2 })).toBe(offline);
    const going = sendReducer(offline, { type: 'attempt', attempt: 1 });
    expect(going).toMatchObject({ status: 'sending', requestId: 'intent-0001', queued: undefined });
    expect(sendReducer(going, { type: 'answer', data: 'hello', replayed: false })).toMatchObject({
      status: 'answered',
      data: 'hello',
    });
  });

  it('ignores a queued count when nothing is in flight', () => {
    const idle = initialSendState<string, { content: string }>();
    expect(sendReducer(idle, { type: 'queued', queued: 1 })).toBe(idle);
    const answered = run([start, { type: 'answer', data: 'a', replayed: false }]);
    expect(sendReducer(answered, { type: 'queued', queued: 1 })).toBe(answered);
  });
});
