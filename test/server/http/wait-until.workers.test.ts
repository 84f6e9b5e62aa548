/**
 * On the real Workers runtime (workerd, through miniflare): a chat worker over a
 * `MemoryStore` whose model streams from a loopback server. A client that disconnects
 * mid-stream ends whatever the request started unless it was handed to `ctx.waitUntil`:
 * with `handle(request, ctx)` the answer still completes and a retry replays it whole,
 * one model call; without, the model is cut off and, once the lease lapses, a retry pays
 * for it again.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';
import { startSseModel } from '../../support/sse-model-server.js';
import { parseEvents, readEvents, tokens } from '../../support/stream-support.js';
import { bundleWorker, orSkip, type RunningWorker, startWorker } from '../../support/workerd.js';

const TOKENS = 24;
const TOKEN_MS = 40;
const LEASE_MS = 1_000;
const ALL = Array.from({ length: TOKENS }, (_, index) => `token ${index}`);

const model = await startSseModel(TOKENS, TOKEN_MS);
const script = await bundleWorker(fileURLToPath(new URL('../../support/chat-worker.ts', import.meta.url)));
const workers = await orSkip(async () => {
  const env = { MODEL_URL: model.url, LEASE_MS: String(LEASE_MS) };
  const [kept, bare] = await Promise.allSettled([
    startWorker(script, { ...env, WAIT_UNTIL: 'on' }),
    startWorker(script, { ...env, WAIT_UNTIL: 'off' }),
  ]);
  const started = [kept, bare].flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (kept.status === 'rejected' || bare.status === 'rejected') {
    await Promise.all(started.map((worker) => worker.dispose()));
    throw kept.status === 'rejected' ? kept.reason : (bare as PromiseRejectedResult).reason;
  }
  return { kept: kept.value, bare: bare.value };
});

afterAll(async () => {
  await Promise.all([workers?.kept.dispose(), workers?.bare.dispose()]);
  await model.close();
});

function send(worker: RunningWorker, id: string, signal?: AbortSignal): Promise<Response> {
  return fetch(new URL('/api/chat', worker.url), {
    method: 'POST',
    headers: { Authorization: 'Bearer alice', 'X-Request-Id': id, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question: 'what outlives a request?' }),
    signal,
  });
}

/** Sends the intent, reads three events, and hangs up, as a closed tab or a dropped network does. */
async function sendAndLeave(worker: RunningWorker, id: string): Promise<string> {
  const client = new AbortController();
  const response = await send(worker, id, client.signal);
  expect(response.status).toBe(200);
  const { text } = await readEvents(response, 3);
  client.abort();
  return text;
}

describe.skipIf(!workers)('workerd: the work outlives the request with waitUntil', () => {
  it('with handle(request, ctx): the client leaves mid-stream, the answer completes, a retry replays it whole — one model call', async () => {
    const before = model.calls.length;
    const seen = await sendAndLeave(workers!.kept, 'wu-kept-000001');
    expect(model.calls).toHaveLength(before + 1);
    expect(await model.calls.at(-1)!.ended).toBe('whole'); // the model answered to its end, with nobody listening

    const retry = await send(workers!.kept, 'wu-kept-000001');
    const replayed = await retry.text();
    expect(retry.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(tokens(parseEvents(replayed))).toEqual(ALL);
    expect(replayed.startsWith(seen)).toBe(true); // the same bytes the first caller got, then the rest
    expect(model.calls).toHaveLength(before + 1);
  });

  it('without it: the runtime ends the work with the client — the model is cut off, and once the lease lapses a retry pays for it again', async () => {
    const before = model.calls.length;
    await sendAndLeave(workers!.bare, 'wu-bare-000001');
    const first = model.calls.at(-1)!;
    expect(await first.ended).toBe('cut');
    expect(first.sent).toBeLessThan(TOKENS);

    await sleep(LEASE_MS * 1.5); // nobody renews the lease of the cancelled run
    const retry = await send(workers!.bare, 'wu-bare-000001');
    expect(tokens(parseEvents(await retry.text()))).toEqual(ALL);
    expect(retry.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(model.calls).toHaveLength(before + 2); // the same intent, paid twice
  });
});
