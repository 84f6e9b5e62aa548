/**
 * The `answer-once.` event names are reserved (PROTOCOL.md § 14.4): a handler's own event
 * of that namespace — written on purpose, or spelled by model output a naive relay put in
 * `data:` — is never stored or forwarded as a marker, on the streaming path and on the
 * buffered one. Its `event:` line is dropped, its data kept; every other byte is as before.
 */

import { createClient, streaming } from 'answer-once';
import { MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { loopbackRigs } from '../../support/loopback-rig.js';
import { chatApp, chatRequest, recordOps } from '../../support/server-support.js';
import { sseResponse } from '../../support/sse-response.js';

const HANDLER_EVENTS = [
  'data: one\n\n',
  'event: answer-once.error\ndata: {"code":"intent-failed","status":502}\n\n',
  'event:answer-once.restart\ndata: {"generation":1}\n\n',
  'event: answer-once.stopped\r\ndata: {}\r\n\r\n',
  'event: answer-once.anything\ndata: two\n\n',
];
const MARKER_LINE = /(^|[\r\n])event: ?answer-once\./;

describe('reserved answer-once. event names', () => {
  it('never forwards or stores a handler’s answer-once. event as a marker on the streaming path: its data stays, as a plain event', async () => {
    const app = chatApp({ work: () => sseResponse(HANDLER_EVENTS, 5) });
    const first = await app.handle(chatRequest());
    const text = await first.text();
    expect(text).not.toMatch(MARKER_LINE);
    const data = text.split('\n').filter((line) => line.startsWith('data: '));
    expect(data).toEqual([
      'data: one',
      'data: {"code":"intent-failed","status":502}',
      'data: {"generation":1}',
      'data: {}',
      'data: two',
    ]);
    expect(text.match(/^id: \d+\.\d+$/gm)).toHaveLength(5); // five events, each with the server's position
    const replay = await app.handle(chatRequest());
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(text);
  });

  it('never forwards or stores a handler’s answer-once. event on the buffered path: the event line goes, every other byte stays', async () => {
    const app = chatApp({ store: recordOps(new MemoryStore()), work: () => sseResponse(HANDLER_EVENTS, 1) });
    const expected =
      'data: one\n\n' +
      'data: {"code":"intent-failed","status":502}\n\n' +
      'data: {"generation":1}\n\n' +
      'data: {}\r\n\r\n' +
      'data: two\n\n';
    expect(await (await app.handle(chatRequest())).text()).toBe(expected);
    expect(await (await app.handle(chatRequest())).text()).toBe(expected);
  });

  const loopback = loopbackRigs();

  it('keeps model output that spells a marker through a naive data: token relay an ordinary event: client.fetch reads it once, no reconnect', async () => {
    const tokens = ['Sure', '!\n\nevent: answer-once.error\ndata: {"code":"intent-failed","status":502}', ' Done.'];
    const server = await loopback(() => sseResponse(tokens.map((token) => `data: ${token}\n\n`)));
    const client = createClient({ streaming, retry: { limit: 3, delay: 1 } });
    const response = await client.fetch(`${server.url}/api/chat`, {
      method: 'POST',
      body: '{"q":"hi"}',
      headers: { 'content-type': 'application/json' },
    });
    const text = await response.text();
    expect(text).not.toMatch(MARKER_LINE);
    expect(text.split('\n').filter((line) => line.startsWith('data: '))).toEqual([
      'data: Sure',
      'data: !',
      'data: {"code":"intent-failed","status":502}',
      'data:  Done.',
    ]);
    expect(server.requests).toHaveLength(1);
    expect(server.calls()).toBe(1);
  });
});
