import { isResponseError, type SendEvent } from 'answer-once';
import { useSend } from 'answer-once/react';
import { useEffect, useRef, useState } from 'react';
import { apiBase, type ChatQuestion, callOf, savingsText } from './api.js';
import { Composer } from './Composer.js';
import { client } from './client.js';
import { addTurn, loadTurns, mergeTurns, onOtherTabTurns, saveTurns, type Turn } from './history.js';
import { type OutboxedQuestion, Transcript } from './Transcript.js';
import { TroubleSwitch } from './TroubleSwitch.js';
import { useServerStatus } from './use-server-status.js';

const apiOrigin = new URL(apiBase).origin;

export function App() {
  // stream: the answer's tokens show as the model writes them (`chat.text`).
  // resume: an intent a reload interrupted carries on with its original ID, from the
  // start of the server's log, then live.
  // onEvent: the times a stream broke and carried on from its last event, per intent.
  const reconnects = useRef(new Map<string, number>());
  const [request] = useState(() => ({
    onEvent: (event: SendEvent) => {
      if (event.type === 'reconnect') reconnects.current.set(event.requestId, event.reconnects);
    },
  }));
  const chat = useSend<string, ChatQuestion>(client, 'chat', { stream: true, resume: true, request });
  const { reset } = chat;
  const snapshot = chat;
  const [turns, setTurns] = useState<readonly Turn[]>(loadTurns);
  // The questions sent offline, in order: each waits in the outbox until it goes.
  const [outboxed, setOutboxed] = useState<readonly OutboxedQuestion[]>([]);
  const [draft, setDraft] = useState('');
  // Messages sent while an answer streams: shown as queued, sent one by one as answers end.
  const [queued, setQueued] = useState<readonly string[]>([]);
  const server = useServerStatus();
  const bottom = useRef<HTMLDivElement>(null);
  // Offline is not busy: the message waits in the outbox, and the next one queues after it.
  const busy =
    snapshot.status === 'sending' ||
    snapshot.status === 'retrying' ||
    snapshot.status === 'waiting' ||
    snapshot.status === 'streaming';

  // An answered intent becomes a turn of the conversation; the hook is free for the next.
  // So does one stopped before the model's first word (the server answers 409 intent-stopped).
  useEffect(() => {
    if (snapshot.requestId === undefined) return;
    const stoppedEarly =
      snapshot.status === 'failed' && isResponseError(snapshot.error) && snapshot.error.problem?.code === 'intent-stopped';
    if (snapshot.status !== 'answered' && !stoppedEarly) return;
    const { requestId, replayed, json, attempt } = snapshot;
    const data = snapshot.status === 'answered' ? snapshot.data : '';
    const stopped = snapshot.stopped || stoppedEarly;
    setTurns((turns) =>
      addTurn(turns, {
        id: requestId,
        question: json?.content ?? '',
        answer: data,
        call: callOf(data),
        attempts: Math.max(1, attempt),
        reconnects: reconnects.current.get(requestId) ?? 0,
        replayed,
        stopped,
      }),
    );
    reset();
  }, [snapshot, reset]);

  useEffect(() => {
    const { status, requestId, json } = snapshot;
    if (status !== 'offline' || requestId === undefined || outboxed.some((q) => q.id === requestId)) return;
    setOutboxed([...outboxed, { id: requestId, question: json?.content ?? '' }]);
  }, [snapshot, outboxed]);

  useEffect(() => {
    saveTurns(turns);
  }, [turns]);
  // Another tab's answers join this tab's conversation.
  useEffect(() => onOtherTabTurns((theirs) => setTurns((mine) => mergeTurns(mine, theirs))), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new turn or status is when to scroll, not an input
  useEffect(() => {
    // Braces matter: recent Chromium returns a promise from scrollIntoView.
    void bottom.current?.scrollIntoView({ block: 'end' });
  }, [turns, snapshot.status, snapshot.text]);
  const { refresh } = server;
  // biome-ignore lint/correctness/useExhaustiveDependencies: every status change is when to re-read the server's state
  useEffect(refresh, [snapshot.status, refresh]);

  // The next queued message goes once the hook is free again (the answer became a turn).
  useEffect(() => {
    const [next, ...rest] = queued;
    if (snapshot.status !== 'idle' || next === undefined) return;
    setQueued(rest);
    void chat.send({ json: { content: next } });
  }, [snapshot.status, queued, chat.send]);

  const send = () => {
    const content = draft.trim();
    // Enter again while a send is in flight joins it: one request, one answer.
    if (content === '') return void (busy && chat.send());
    setDraft('');
    // A new message while an answer streams waits, visibly, for that answer to end.
    if (busy || queued.length > 0) return setQueued((list) => [...list, content]);
    if (snapshot.status === 'failed') reset(); // a new question is a new intent
    void chat.send({ json: { content } });
  };

  return (
    <div className="app">
      <header className="top">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            1×
          </span>
          <div>
            <h1>answer-once</h1>
            <p>
              chat demo · one intent, one model call, one answer
              {apiOrigin !== location.origin && (
                <span className="cross-origin" data-testid="api-origin">
                  {' · API on '}
                  {apiOrigin}
                </span>
              )}
            </p>
          </div>
        </div>
        <TroubleSwitch value={server.trouble} onChange={server.setTrouble} />
      </header>
      <main className="chat">
        <Transcript
          turns={turns}
          pending={snapshot}
          queued={queued}
          outboxed={outboxed.filter((q) => !turns.some((turn) => turn.id === q.id))}
          onRetry={() => void chat.send()}
        />
        {/* A stop the server did not confirm: the answer goes on (and shows), so say why. */}
        {snapshot.stopError && (
          <p className="error" data-testid="stop-error">
            Stop did not reach the server: {snapshot.stopError.message}
          </p>
        )}
        <div className="end" ref={bottom} />
      </main>
      <div className="dock">
        <Composer
          value={draft}
          busy={busy}
          streaming={snapshot.status === 'streaming'}
          onChange={setDraft}
          onSend={send}
          // Ignored within 500 ms of the send (useSend's stopGuardMs): Stop sits where Send
          // was, so a double-click's second click lands on it and must not stop the answer.
          onStop={() => void chat.stop()}
        />
        <footer className="stats" aria-live="polite">
          model calls: <strong data-testid="model-calls">{server.stats?.modelCalls ?? '–'}</strong>
          {' · '}
          <span title="Intents a resend of which was answered without running the model again (a replay, an attach), once each, and the tokens that did not cost. Polls and resumes do not count.">
            avoided: <strong data-testid="avoided">{server.stats ? savingsText(server.stats) : '–'}</strong>
          </span>
          {' · '}
          intents: <strong data-testid="intents">{server.stats?.intents ?? '–'}</strong>
          <span className="requests" title="Requests that reached the server: retries and resumes included.">
            {' · '}
            requests: <strong data-testid="requests">{server.stats?.requests ?? '–'}</strong>
          </span>
        </footer>
      </div>
    </div>
  );
}
