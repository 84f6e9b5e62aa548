/**
 * Tool approvals named by the intent. `streamText` mints a random id for each approval it
 * asks for (`needsApproval`), so a re-run of the intent after a crash would ask for the
 * same approval under another id: the answer readers have would not be the re-run's, and
 * a tab that answered the first id would answer an approval that no longer exists. This
 * `streamText` transform gives each approval an id derived from the intent and its tool
 * call (the journal replays the call, id and all), so every run asks under the same id;
 * the transport keys the approval's answer by it (answer-once/ai), so the approved tool
 * runs once however many tabs answer.
 */
import type { StreamTextTransform, TextStreamPart, ToolSet } from 'ai';
import { sha256 } from '../server/sha256.js';

const encoder = new TextEncoder();

/** Base64url characters of the digest kept: 192 bits. */
const DIGEST_CHARS = 32;

/**
 * `approval-<digest>`: base64url of SHA-256 over "answer-once/approval@1" LF requestId LF
 * toolCallId, cut to 32 characters — 41 characters of `[A-Za-z0-9_-]`, fit to name an
 * intent. Neither the prefix nor a request ID holds a line feed: the framing is unambiguous.
 */
export async function approvalId(requestId: string, toolCallId: string): Promise<string> {
  const digest = await sha256(encoder.encode(`answer-once/approval@1\n${requestId}\n${toolCallId}`));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  const base64url = btoa(binary).replace(/\+/g, '-').replace(/\//g, '_');
  return `approval-${base64url.slice(0, DIGEST_CHARS)}`;
}

/**
 * The transform for intent `requestId`. An approval `streamText` signed
 * (`experimental_toolApprovalSecret`) keeps its id: the signature covers it.
 */
export function approvalIds<TOOLS extends ToolSet>(requestId: string): StreamTextTransform<TOOLS> {
  return () => {
    /** The derived id of each approval this run asked for, by the id `streamText` minted. */
    const derived = new Map<string, string>();
    return new TransformStream<TextStreamPart<TOOLS>, TextStreamPart<TOOLS>>({
      transform(part, controller) {
        if (part.type === 'tool-approval-request' && part.signature === undefined) {
          return approvalId(requestId, part.toolCall.toolCallId).then((id) => {
            derived.set(part.approvalId, id);
            controller.enqueue({ ...part, approvalId: id });
          });
        }
        if (part.type === 'tool-approval-response') {
          const id = derived.get(part.approvalId); // an approval decided without a person (`toolApproval`)
          if (id !== undefined) return controller.enqueue({ ...part, approvalId: id });
        }
        controller.enqueue(part);
      },
    });
  };
}
