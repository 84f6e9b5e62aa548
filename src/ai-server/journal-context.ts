import type { HandlerContext } from '../server/index.js';

/**
 * What `journaled` needs of a run: the handler's context (`createIdempotencyHandler`), or
 * `runOnce`'s with the intent's ID added (`{ ...ctx, requestId }`).
 */
export type JournalContext = Pick<HandlerContext, 'requestId' | 'step' | 'beginStep'>;
