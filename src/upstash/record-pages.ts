/**
 * A settled record's stored answer, read in pages: a capped script (`scripts/define.ts`,
 * `record`) leaves out a result or error that would cost more than {@link PAGE_COST} in
 * its reply and sends its length instead, and the store reads it with
 * `scripts/read-field.ts`, each page only of that very record (its generation and
 * settling time). A record claimed again or expired meanwhile is read afresh, never
 * stitched from two.
 */

import { concat } from '../core/bytes.js';
import { RedisStoreReplyError } from '../redis/errors.js';
import { array, integer, text } from '../redis/reply.js';
import { PAGE_COST } from './request-size.js';

/** The cap a capped read passes on: a result or error costing more is read in pages. */
export const RECORD_CAP = String(PAGE_COST);

/** Why a read gave up: the record was claimed again or expired under each of its three tries. */
export const RECORD_CHANGING = 'answer-once/upstash: the record kept changing while its stored answer was read';

/** Where the record reply holds the result (`r`) and the error (`e`), `scripts/define.ts`. */
const RESULT = 7;
const ERROR = 8;

/**
 * `reply`, a record as a capped script sent it, with the result or error it left out read
 * in pages by `readPage` (`scripts/read-field.ts` with the given arguments); `undefined`
 * when the record changed meanwhile (it expired, or a failure was claimed again).
 */
export async function wholeRecord(
  reply: unknown,
  readPage: (args: string[]) => Promise<unknown>,
): Promise<unknown[] | undefined> {
  const record = [...array(reply, 3)];
  if (record.length <= 16) return record;
  const length = integer(record.pop());
  const at = text(record[2]) === 'completed' ? RESULT : ERROR;
  const fence = [at === RESULT ? 'r' : 'e', text(record[10]) ?? '', text(record[9]) ?? ''];
  const chunks: Uint8Array[] = [];
  // Bounded: each page reads at least one byte more, or ends the read.
  for (let offset = 0; offset < length; ) {
    const [page] = array(await readPage([...fence, String(offset), RECORD_CAP]), 0);
    if (page === undefined) return undefined;
    if (!(page instanceof Uint8Array) || page.byteLength === 0) {
      throw new RedisStoreReplyError('answer-once/upstash: a page of a stored answer came back empty');
    }
    chunks.push(page);
    offset += page.byteLength;
  }
  record[at] = concat(chunks);
  return record;
}

/** `read()`'s result, read again while the record it read changed meanwhile (`undefined`): three tries at most. */
export async function readSettled<T>(read: () => Promise<T | undefined>): Promise<T> {
  // Bounded: three tries.
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const result = await read();
    if (result !== undefined) return result;
  }
  throw new RedisStoreReplyError(RECORD_CHANGING);
}
