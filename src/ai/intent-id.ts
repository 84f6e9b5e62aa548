/**
 * The intent ID of a submitted chat request, when the request says which intent it is:
 *
 * - **A user's message**: its message id, joined with a digest of the request's whole
 *   payload. So sending the same message with the same conversation again (a double
 *   submit, a retry) is the same intent — joined while in flight, replayed after — while an
 *   edit, which the AI SDK sends under the same message id with new text, is a new intent:
 *   it never joins the answer to the old text, and never meets the server's
 *   `request-id-reused` for it.
 * - **Answers to tool approvals** (the last message the assistant's, its tool parts
 *   `approval-responded`): the approvals' ids, whatever the answers (./tool-answers.ts).
 */
import type { UIMessage } from 'ai';
import { isValidRequestId } from '../core/request-id.js';

/** Characters of the id kept, so the ID stays within the protocol's 128. */
const ID_CHARS = 100;

/** A 53-bit digest of `text` (cyrb53: two 32-bit multiply-xor lanes), in base 36. */
function digest(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** `<id>-<digest of text>`, or `undefined` when `id` is no valid ID part. */
export function intentIdOf(id: string | undefined, text: string): string | undefined {
  if (id === undefined || !isValidRequestId(id)) return undefined;
  return `${id.slice(0, ID_CHARS)}-${digest(text)}`;
}

/** The intent ID of a request whose last message is the user's (see the file's comment), else `undefined`. */
export function userIntentId(messages: readonly UIMessage[], payload: string): string | undefined {
  const last = messages.at(-1);
  return last?.role === 'user' ? intentIdOf(last.id, payload) : undefined;
}
