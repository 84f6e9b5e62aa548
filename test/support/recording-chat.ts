/**
 * The AI SDK's own chat logic (`AbstractChat`, what `useChat` runs) over
 * `answerOnceTransport`, its state kept as plain arrays with every text the assistant
 * message showed — what the person saw, frame by frame.
 */
import { AbstractChat, type ChatState, type UIMessage } from 'ai';
import { createClient, type StorageAdapter } from 'answer-once';
import { type AnswerOnceTransport, answerOnceTransport } from 'answer-once/ai';
import { sleep } from './sleep.js';

/** A chat's state as plain arrays, keeping every text the assistant message showed. */
export class RecordingState implements ChatState<UIMessage> {
  status: ChatState<UIMessage>['status'] = 'ready';
  error: Error | undefined;
  messages: UIMessage[] = [];
  /** The assistant message's text at every update: what the person saw, frame by frame. */
  readonly shown: string[] = [];
  constructor(messages: UIMessage[] = []) {
    this.messages = messages;
  }
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
    this.#record(message);
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((old, at) => (at === index ? message : old));
    this.#record(message);
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
  #record(message: UIMessage) {
    if (message.role === 'assistant') this.shown.push(textOf(message));
  }
}

export class RecordingChat extends AbstractChat<UIMessage> {
  readonly recorded: RecordingState;
  /** The Stop button of a page that guards it (`transport.guardStop(stop)`), as the demos' is. */
  readonly guardedStop: () => Promise<void>;
  constructor(init: ConstructorParameters<typeof AbstractChat<UIMessage>>[0] & { transport: AnswerOnceTransport }) {
    super(init);
    this.recorded = init.state as RecordingState;
    this.guardedStop = init.transport.guardStop(() => this.stop());
  }
}

export const textOf = (message: UIMessage | undefined): string =>
  (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

export interface ChatOptions {
  /** The client's `fetch`: where its requests go. */
  readonly fetch: typeof globalThis.fetch;
  /** The client's storage of pending intents (a reloaded page's chat shares it). @default none */
  readonly storage?: StorageAdapter;
  /** The chat's messages so far (a reloaded page's, restored from its own storage). @default [] */
  readonly messages?: UIMessage[];
  /** @default 'chat-1' */
  readonly id?: string;
}

/** A chat whose requests go to `fetch` (its base URL is a placeholder `fetch` resolves). */
export function recordingChat({ fetch, storage, messages, id = 'chat-1' }: ChatOptions): RecordingChat {
  let n = 0;
  const client = createClient({ fetch, baseUrl: 'http://127.0.0.1:9/', ...(storage && { storage }) });
  return new RecordingChat({
    id,
    generateId: () => `${id}-msg-${String(++n).padStart(4, '0')}`,
    transport: answerOnceTransport({ client, api: 'api/chat' }),
    state: new RecordingState(messages),
  });
}

/** Resolves once `chat` is `ready` or in `error`, or after `timeoutMs`. */
export async function settled(chat: RecordingChat, timeoutMs = 10_000): Promise<void> {
  for (let waited = 0; chat.status !== 'ready' && chat.status !== 'error' && waited < timeoutMs; waited += 10) {
    await sleep(10);
  }
}
