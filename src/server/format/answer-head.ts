/**
 * The head of a streamed answer as the log keeps it (PROTOCOL.md § 14.2): the work's
 * status and its replayable headers, as JSON.
 */
export interface AnswerHead {
  readonly v: 1;
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
}

/** The head of `response`, with only the headers in `allow` (lowercase names). */
export function headOf(response: Response, allow: ReadonlySet<string>): AnswerHead {
  return { v: 1, status: response.status, headers: [...response.headers].filter(([name]) => allow.has(name.toLowerCase())) };
}

export function encodeHead(head: AnswerHead): string {
  return JSON.stringify(head);
}

/** Parses a logged head; throws a TypeError when it is not one. */
export function parseHead(text: string): AnswerHead {
  const value = JSON.parse(text) as Partial<AnswerHead> | null;
  if (value?.v !== 1 || typeof value.status !== 'number' || !Array.isArray(value.headers)) {
    throw new TypeError('answer-once: the logged head is not an answer head.');
  }
  return value as AnswerHead;
}
