import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { BookingNote } from './booking-note.js';
import {
  CHAT_ID,
  loadMessages,
  loadStopped,
  outboxCount,
  saveMessages,
  saveStopped,
  seamStore,
  seams,
  transport,
} from './chat.js';
import { caughtUp, enqueue, queueStore, takeNext } from './queue.js';
import { useStickToBottom } from './stick-to-bottom.js';
import { replayedText, savingsText, type Trouble, useServer } from './use-server.js';

const textOf = (message: UIMessage) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

const TROUBLE: ReadonlyArray<{ mode: Trouble; label: string; hint: string }> = [
  { mode: 'none', label: 'Normal', hint: 'No trouble.' },
  {
    mode: 'cut',
    label: 'Cut the stream mid-answer',
    hint: 'The server drops the connection after a few tokens of your next answer; the page reconnects and the answer continues.',
  },
  {
    mode: 'break',
    label: 'Break the model mid-answer',
    hint: 'The model’s stream fails after a few tokens: the intent runs again (a second model call, honestly) and the new answer replaces the partial one in place.',
  },
  {
    mode: 'crash-after-tool',
    label: 'Crash after the tool',
    hint: 'Ask to book a table: the server dies once the booking is made and the answer’s second step has begun. Another run takes the message over, replays the first step and the booking from the journal, and continues the answer in place: one booking.',
  },
  {
    mode: 'crash-in-tool',
    label: 'Crash inside the tool',
    hint: 'Ask to book a table: the server dies while the booking is made, before its outcome is recorded. Nobody knows whether it went through, so it is not tried again: the answer says so — at most one booking, never two.',
  },
];

export function App() {
  const [initial] = useState(loadMessages);
  // The conversation ends with the person's Approve / Deny and nothing of its answer: the
  // page closed or reloaded before (or while) it was sent. It is sent again on load: its
  // intent is keyed by the approval, so one that left already is read, not run again.
  const [unsentApproval] = useState(() => lastAssistantMessageIsCompleteWithApprovalResponses({ messages: initial }));
  const [stopped, setStopped] = useState(loadStopped);
  // resume: on load, an answer still streaming on the server (this tab reloaded, or
  // another tab asked) is read again from its start: no model call, no duplicated text.
  const { messages, sendMessage, stop, status, error, setMessages, resumeStream, addToolApprovalResponse } = useChat({
    id: CHAT_ID,
    transport,
    resume: !unsentApproval,
    messages: initial,
    // Approve or Deny sends the answer at once: the booking runs (or not) and the model answers.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    // An answer ended by Stop is marked so, now and after a reload (it looks finished otherwise).
    onFinish: ({ message, isAbort }) => {
      if (isAbort && message.role === 'assistant') setStopped((ids) => new Set(ids).add(message.id));
    },
  });
  const [draft, setDraft] = useState('');
  // A stop the server did not confirm (its status route does not answer DELETE, say): the
  // model writes on, paid for, though useChat shows the answer stopped. Say so.
  const [stopError, setStopError] = useState<Error>();
  useEffect(() => transport.onStopError(setStopError), []);
  // Messages sent while an answer streams or waits: shown as queued, sent one by one as
  // answers end — kept with the conversation, so a closed tab's queue goes from the next page.
  const queued = useSyncExternalStore(queueStore.subscribe, queueStore.queued);
  const sender = useSyncExternalStore(queueStore.subscribe, queueStore.sender);
  const server = useServer(status);
  const pin = useStickToBottom();
  const busy = status === 'submitted' || status === 'streaming';
  const waitsForAnswer = messages.at(-1)?.role === 'user';
  useSyncExternalStore(seamStore.subscribe, seamStore.version);

  useEffect(() => saveMessages(messages), [messages]);
  // Once: after StrictMode's doubled effect, whose cleanup stops the chat (and would stop this send).
  const approvalSent = useRef(false);
  useEffect(() => {
    if (!unsentApproval || approvalSent.current) return;
    const send = setTimeout(() => {
      approvalSent.current = true;
      void sendMessage();
    });
    return () => clearTimeout(send);
  }, [unsentApproval, sendMessage]);
  useEffect(() => saveStopped(stopped), [stopped]);
  // Sending the queue taken over from a closed tab: that tab's conversation (saved) may be
  // ahead of this one; show it and resume its pending answer before sending the next.
  useEffect(() => {
    if (!sender.tookOver || status !== 'ready') return;
    caughtUp();
    const saved = loadMessages();
    // Ahead means more questions; an answer this tab is still reading is not a reason to read it again.
    const questions = (list: readonly UIMessage[]) => list.flatMap((m) => (m.role === 'user' ? [m.id] : [])).join();
    if (questions(saved) === questions(messages)) return;
    setMessages(saved);
    void resumeStream();
  }, [sender, status, messages, setMessages, resumeStream]);
  // The next queued message goes once the answer above it is in the chat: its request
  // carries that answer. A failed answer holds the queue; so does one still to be resumed
  // after a reload (the last message is the question).
  useEffect(() => {
    if (!sender.sends || sender.tookOver || status !== 'ready' || waitsForAnswer || queued.length === 0) return;
    const next = takeNext();
    // `parts`, not `text`: the message is in the chat before this returns, so no render sees
    // the queue shorter and the chat without it.
    if (next !== undefined) void sendMessage({ role: 'user', parts: [{ type: 'text', text: next }] });
  }, [sender, status, waitsForAnswer, queued, sendMessage]);

  const send = () => {
    const text = draft.trim();
    if (text === '') return;
    setDraft('');
    pin();
    // A new message while an answer streams waits, visibly, for that answer to end.
    if (busy || queued.length > 0) return enqueue(text);
    void sendMessage({ text });
  };

  return (
    <div className="app">
      <header className="top">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            1×
          </span>
          <div>
            <h1>answer-once × useChat</h1>
            <p>the AI SDK's useChat over answerOnceTransport · one message, one answer, each model call once</p>
          </div>
        </div>
        <fieldset className="trouble">
          <legend>Network trouble (next answer)</legend>
          <div className="segmented" role="radiogroup">
            {TROUBLE.map(({ mode, label, hint }) => (
              // biome-ignore lint/a11y/useSemanticElements: a segmented control: styled buttons, radio semantics by ARIA
              <button
                key={mode}
                type="button"
                role="radio"
                aria-checked={server.trouble === mode}
                title={hint}
                data-testid={`trouble-${mode}`}
                className={server.trouble === mode ? 'segment active' : 'segment'}
                onClick={() => server.setTrouble(mode)}
              >
                {label}
              </button>
            ))}
          </div>
        </fieldset>
      </header>

      <main className="chat">
        {messages.length === 0 && (
          <div className="empty">
            <h2>Ask anything.</h2>
            <p>
              The answer streams token by token. Cut the stream mid-answer, reload the page while it streams, open a second
              tab, or press Stop and reload: the footer's model calls go up by one per answer, never more. Ask “book a table
              for 2 at 8”: the agent asks before it books, and the booking is two model calls, one before your Approve and
              one after. Double-click Approve, approve in two tabs, reload, or crash the server mid-way: one booking,
              whatever happens.
            </p>
          </div>
        )}
        {messages.map((message, index) => {
          // The server names each answer `answer-<request ID>` (api.ts), so the page can
          // tell what the client did for its stream.
          const seam = message.role === 'assistant' ? seams.get(message.id.replace(/^answer-/, '')) : undefined;
          return (
            <div key={message.id} className={`turn ${message.role}`}>
              <p className={`bubble ${message.role}`} data-testid={message.role === 'user' ? 'question' : 'answer'}>
                {textOf(message)}
                {busy && index === messages.length - 1 && message.role === 'assistant' && <span className="caret" />}
              </p>
              {message.parts.map((part) =>
                part.type === 'tool-bookTable' ? (
                  <BookingNote key={part.toolCallId} part={part} answer={addToolApprovalResponse} />
                ) : null,
              )}
              {stopped.has(message.id) && (
                <span className="badge stopped" data-testid="stopped-badge" title="Stopped: this is all of it.">
                  stopped
                </span>
              )}
              {seam && (
                <span className="seam" data-testid="seam">
                  {seam.resumed > 0 && `stream resumed ×${seam.resumed}`}
                  {seam.resumed > 0 && seam.restarted > 0 && ' · '}
                  {seam.restarted > 0 && 'restarted on the server: the new answer replaced the partial one'}
                </span>
              )}
            </div>
          );
        })}
        {queued.map((text, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the same question may be queued twice; order is identity here
          <div key={index} className="turn user queued" data-testid="queued">
            <p className="bubble user">{text}</p>
            <span className="queued-note">
              {status === 'error' ? 'queued · waits: the answer above failed' : 'queued · sent when the answer above ends'}
            </span>
          </div>
        ))}
        {outboxCount() > 0 && (
          // Everything that waits: the message in the outbox and those queued behind it.
          <p className="offline" data-testid="offline">
            waiting for a connection · {outboxCount() + queued.length} queued
          </p>
        )}
        {error && (
          <p className="error" data-testid="error">
            {error.message}
          </p>
        )}
        {stopError && (
          <p className="error" data-testid="stop-error">
            Stop did not reach the server: {stopError.message}
          </p>
        )}
      </main>

      <div className="dock">
        <form
          className="composer"
          onSubmit={(event) => {
            event.preventDefault();
            send();
          }}
        >
          <input
            data-testid="composer"
            value={draft}
            placeholder="Ask something…"
            onChange={(event) => setDraft(event.target.value)}
          />
          {busy ? (
            // stop(): the AI SDK aborts its stream; the transport sends DELETE /api/status/<id>
            // with the last chunk shown: the model stops on the server, which keeps exactly the
            // text on screen. Guarded: a double-click's second click lands here and stops nothing.
            <button type="button" className="stop" data-testid="stop" onClick={transport.guardStop(stop)}>
              Stop
            </button>
          ) : (
            <button type="submit" data-testid="send" disabled={draft.trim() === ''}>
              Send
            </button>
          )}
        </form>
        <footer className="stats" aria-live="polite">
          <span data-testid="status" data-state={status}>
            {status}
          </span>
          {' · '}
          model calls: <strong data-testid="model-calls">{server.stats?.modelCalls ?? '–'}</strong>
          {' · '}
          <span title="Intents a resend of which was answered without running the model again (a replay, an attach), once each, and the tokens that did not cost. Polls and resumes do not count.">
            avoided: <strong data-testid="avoided">{server.stats ? savingsText(server.stats) : '–'}</strong>
          </span>
          {' · '}
          <span title="Tables the bookTable tool booked: its side effect, counted by the restaurant.">
            bookings: <strong data-testid="bookings">{server.stats?.bookings ?? '–'}</strong>
          </span>
          {' · '}
          <span title="Model calls and tool calls of an agent turn that a run taking over a crashed one replayed from the step journal instead of running again.">
            replayed: <strong data-testid="replayed">{server.stats ? replayedText(server.stats) : '–'}</strong>
          </span>
          {' · '}
          intents: <strong data-testid="intents">{server.stats?.intents ?? '–'}</strong>
          {' · '}
          <span title="Requests to the chat route: reconnects after a cut and resumes after a reload included.">
            requests: <strong data-testid="requests">{server.stats?.requests ?? '–'}</strong>
          </span>
          {' · '}
          <button type="button" className="link" data-testid="clear" disabled={busy} onClick={() => setMessages([])}>
            clear chat
          </button>
        </footer>
      </div>
    </div>
  );
}
