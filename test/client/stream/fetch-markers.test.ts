/**
 * client.fetch reads an answer-once event stream as the protocol frames it
 * (PROTOCOL.md § 14.4–14.7): only the protocol's own units are markers, so a model's
 * text can never pose as one; and a resumed body starts where it was asked to, or is
 * placed by its first position — never a byte twice, never two answers spliced.
 */

import { isProtocolError } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { BASE, scriptedClient } from '../../support/scripted-fetch.js';
import { generationAnswer, positionedEvents, restartMarker } from '../../support/sse-response.js';

/** What a resend gets in these specs: none is expected. */
const gone = () => new Response('no resend expected', { status: 410 });

describe('client.fetch: only protocol units are markers', () => {
  it('hands on a body event named answer-once.error that carries a position id as body, with no reconnect', async () => {
    const units = positionedEvents(41, [
      'one',
      { event: 'answer-once.error', data: '{"code":"intent-failed","status":502}' },
      'two',
    ]);
    const { server, client, events } = scriptedClient((_request, n) => (n === 1 ? generationAnswer(41, units) : gone()));
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    expect(await response.text()).toBe(units.join(''));
    expect(server.seen).toHaveLength(1);
    expect(events.filter((event) => event.type === 'reconnect')).toEqual([]);
  });

  it('hands on a body event named answer-once.restart whose id is a position past 0 as body: no restart', async () => {
    const units = positionedEvents(41, ['one', { event: 'answer-once.restart', data: '{"generation":41}' }, 'two']);
    const { server, client, events } = scriptedClient((_request, n) => (n === 1 ? generationAnswer(41, units) : gone()));
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    expect(await response.text()).toBe(units.join(''));
    expect(server.seen).toHaveLength(1);
    expect(events.filter((event) => event.type === 'restart')).toEqual([]);
  });
});

describe('client.fetch: a resumed event stream starts where it was asked to', () => {
  const units = positionedEvents(41, ['one', 'two', 'three']);

  it('skips what it has when a resume is answered from offset 0 of the same generation (Last-Event-ID dropped)', async () => {
    const { server, client } = scriptedClient((_request, n) =>
      n === 1 ? generationAnswer(41, [units[0]!, units[1]!.slice(0, 5)], 'cut') : generationAnswer(41, units),
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    expect(await response.text()).toBe(units.join(''));
    expect(server.seen).toHaveLength(2);
  });

  it('skips what it has in any chunking: the resumed body one byte at a time', async () => {
    const bytes = units.join('');
    const { client } = scriptedClient((_request, n) =>
      n === 1 ? generationAnswer(41, [units[0]!], 'cut') : generationAnswer(41, [...bytes]),
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    expect(await response.text()).toBe(bytes);
  });

  it('takes a resume answered by a newer generation from its start, without a marker, as a restart: the marker first', async () => {
    const fresh = positionedEvents(42, ['uno', 'dos']);
    const { client, events } = scriptedClient((_request, n) =>
      n === 1 ? generationAnswer(41, [units[0]!], 'cut') : generationAnswer(42, fresh),
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    expect(await response.text()).toBe(units[0]! + restartMarker(42) + fresh.join(''));
    expect(events.filter((event) => event.type === 'restart')).toMatchObject([{ generation: 42 }]);
  });

  it('errors with ProtocolError on a resume that starts past the position asked (bytes missing)', async () => {
    const { client } = scriptedClient((_request, n) =>
      n === 1 ? generationAnswer(41, [units[0]!], 'cut') : generationAnswer(41, [units[2]!]),
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const error = await response.text().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isProtocolError(error)).toBe(true);
    expect((error as Error).message).toMatch(/starts at 41\.\d+, not at 41\.\d+ as asked/);
  });
});
