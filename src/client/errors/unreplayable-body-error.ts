import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * The client has `storage`, so every pending intent must survive a reload, but this
 * body cannot be written down (a stream, a Blob, binary data, FormData with files).
 * Nothing was sent. Send JSON, a string, URLSearchParams or FormData of strings, or use
 * a client without `storage` for uploads.
 */
export class UnreplayableBodyError extends AnswerOnceError {
  override name = 'UnreplayableBodyError' as const;

  constructor(kind: string, context: IntentErrorContext) {
    super(
      `a ${kind} body cannot be stored for resume; send JSON, text or form fields, or drop \`storage\`.`,
      context,
      false,
    );
  }
}
