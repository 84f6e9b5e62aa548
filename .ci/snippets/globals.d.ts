// Names the reference's fragments use without defining them, declared once with their
// types (CONTRIBUTING.md § "Docs: README, docs/, the API reference"). A block that
// defines one of these names shadows it.

/** The app's answer-once client. */
declare const client: import('answer-once').AnswerOnceClient;
/** The server's store, shared by its instances. */
declare const store: import('answer-once/server').IdempotencyStore;
/** The app's scope: whose intent a request is, from its own auth. */
declare const scope: import('answer-once/server').ScopeResolver;
/** The app's work for one intent. */
declare const handler: import('answer-once/server').IdempotencyHandlerOptions['handler'];
/** A node-postgres pool. */
declare const pool: import('pg').Pool;
/** An AI SDK model: `openai('…')`, `anthropic('…')`. */
declare const model: import('ai').LanguageModel;
/** What the user typed. */
declare const content: string;
/** A model call whose answer streams (text/event-stream bytes). */
declare function streamAnswer(content: string, options: { signal: AbortSignal }): ReadableStream<Uint8Array>;
/** A model call that summarises a text. */
declare function summarise(text: string, options: { signal: AbortSignal }): Promise<string>;
/** A queue's message, redelivered until acknowledged. */
declare const message: { id: string; orderId: string; text: string; ack(): Promise<void> };
/** A queue message's business id, and the work it asks for. */
declare const messageId: string;
declare function work(context: import('answer-once/server').RunContext): Promise<unknown>;
/** Where a queue consumer sends the answer's bytes on. */
declare function forward(chunk: Uint8Array): void;
/** Shows text on the page. */
declare function render(text: string): void;
/** A test database connection for a store's contract suite. */
declare function openTestConnection(): { close(): Promise<void> };

/** Cloudflare Workers' per-request context (the global `wrangler types` declares). */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
}
