/**
 * What a held streamed answer keeps while its model waits (bench/README.md, "heap per
 * held stream"): not the Request its work was given, nor that Request's body stream.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatRequest, gate } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { parseEvents, sseAnswer, tokens } from '../../support/stream-support.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('createIdempotencyHandler: a streamed answer held while its model waits', () => {
  it('keeps no hold of the Request its work was given, and still answers whole', async () => {
    const release = gate();
    let given: WeakRef<Request> | undefined;
    const handle = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'alice' }),
      handler: (request) => {
        given = new WeakRef(request);
        return sseAnswer(2, { pause: { at: 1, until: release.promise } });
      },
    });
    const reader = (await handle(chatRequest())).body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    expect(tokens(parseEvents(text))).toEqual(['token 0']);

    // A WeakRef holds its target to the end of the task that made it: collect after it.
    await sleep(20);
    gc();
    expect(given?.deref()).toBeUndefined();

    release.open();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += decoder.decode(next.value, { stream: true });
    }
    expect(tokens(parseEvents(text))).toEqual(['token 0', 'token 1']);
  });
});
