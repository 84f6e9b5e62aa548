// The stand-in for a snippet's `./model`: the user's own model, which the docs cannot know.
import type { LanguageModel } from 'ai';

/** An AI SDK model: `openai('…')`, `anthropic('…')`. */
export declare const model: LanguageModel;

/** A plain model call: a question in, an answer out. */
export declare function ask(content: string, options: { signal: AbortSignal }): Promise<string>;
