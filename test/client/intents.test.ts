import { AbortError, createClient, type SendEvent } from 'answer-once';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createProtocolFake, idOf, ORIGIN, useMsw } from '../support/protocol-fake.js';
import { sleep } from '../support/sleep.js';

const server = await useMsw();

/** A send route whose answers the test releases by hand. */
function gated() {
  const ids: (string | undefined)[] = [];
  const gates: (() => void)[] = [];
  server.use(
    http.post(`${ORIGIN}/chat`, async ({ request }) => {
      ids.push(idOf(request));
      await new Promise<void>((resolve) => gates.push(resolve));
      return HttpResponse.json({ answer: ids.length });
    }),
  );
  const releaseAll = () => {
    for (const open of gates.splice(0)) open();
  };
  const waitForRequests = async (n: number) => {
    while (ids.length < n) await sleep(1);
  };
  return { ids, releaseAll, waitForRequests };
}

describe('intentKey', () => {
  it('lets rapid clicks share one request, one ID and one result', async () => {
    const fake = createProtocolFake();
    server.use(...fake.handlers);
    const client = createClient({ baseUrl: ORIGIN });
    const clicks = Array.from({ length: 5 }, () => client.send('chat', { json: { content: 'hi' }, intentKey: 'composer' }));
    const results = await Promise.all(clicks);
    expect(fake.stats.requests).toBe(1);
    expect(fake.stats.workRuns).toBe(1);
    expect(new Set(results.map((r) => r.requestId)).size).toBe(1);
    expect(new Set(results)).toHaveProperty('size', 1);
  });

  it('starts a new intent with a new ID once the shared one has settled', async () => {
    const fake = createProtocolFake();
    server.use(...fake.handlers);
    const client = createClient({ baseUrl: ORIGIN });
    const first = await client.send('chat', { json: { n: 1 }, intentKey: 'composer' });
    const second = await client.send('chat', { json: { n: 2 }, intentKey: 'composer' });
    expect(second.requestId).not.toBe(first.requestId);
    expect(fake.stats.workRuns).toBe(2);
  });

  it('joins calls that pass the same requestId, as resume() and a retry button do', async () => {
    const gate = gated();
    const client = createClient({ baseUrl: ORIGIN });
    const a = client.send('chat', { json: {}, requestId: 'shared-intent-01' });
    const b = client.send('chat', { json: {}, requestId: 'shared-intent-01' });
    await gate.waitForRequests(1);
    gate.releaseAll();
    expect(await a).toBe(await b);
    expect(gate.ids).toEqual(['shared-intent-01']);
  });

  it('lets one caller leave with its signal while the others still get the answer', async () => {
    const gate = gated();
    const client = createClient({ baseUrl: ORIGIN });
    const leaving = new AbortController();
    const events: SendEvent['type'][] = [];
    const stays = client.send('chat', { json: {}, intentKey: 'k', onEvent: (e) => events.push(e.type) });
    const leaves = client.send('chat', { json: {}, intentKey: 'k', signal: leaving.signal }).catch((e: unknown) => e);
    await gate.waitForRequests(1);
    leaving.abort();
    const left = await leaves;
    expect(left).toBeInstanceOf(AbortError);
    gate.releaseAll();
    await expect(stays).resolves.toMatchObject({ data: { answer: 1 } });
    expect(events).toEqual(['attempt', 'settled']);
    expect((left as AbortError).requestId).toBe((await stays).requestId);
  });

  it('aborts the shared request only when every caller has left', async () => {
    const gate = gated();
    const client = createClient({ baseUrl: ORIGIN });
    const one = new AbortController();
    const two = new AbortController();
    const a = client.send('chat', { json: {}, intentKey: 'k', signal: one.signal }).catch((e: unknown) => e);
    const b = client.send('chat', { json: {}, intentKey: 'k', signal: two.signal }).catch((e: unknown) => e);
    await gate.waitForRequests(1);
    one.abort();
    two.abort();
    expect(await a).toBeInstanceOf(AbortError);
    expect(await b).toBeInstanceOf(AbortError);
    gate.releaseAll();
    // The key is free again: the next click is a new intent.
    const next = client.send('chat', { json: {}, intentKey: 'k' });
    await gate.waitForRequests(2);
    gate.releaseAll();
    await next;
    expect(gate.ids[1]).not.toBe(gate.ids[0]);
  });
});
