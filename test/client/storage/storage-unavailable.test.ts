/**
 * Intent storage the browser refuses (site data blocked, a private mode): reading
 * `localStorage` throws `SecurityError`. A send never depends on it: it goes without its
 * record (a reload cannot resume it), and the page is told once.
 */

import { createClient, webStorageAdapter } from 'answer-once';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ask, chatRoute, URL_ } from '../../support/outbox-rig.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const denied = () => {
  throw new DOMException("Failed to read the 'localStorage' property from 'Window': Access is denied.", 'SecurityError');
};

describe('intent storage the browser refuses', () => {
  it('never fails a send: each answered, one model call each, resume() finds nothing, and the page is told once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const route = chatRoute();
    const client = createClient({ fetch: route.fetch, storage: webStorageAdapter(denied) });
    expect((await client.send(URL_, ask('one'))).data).toEqual({ answer: 'to one' });
    expect((await client.send(URL_, ask('two'))).data).toEqual({ answer: 'to two' });
    expect(route.ran).toHaveLength(2);
    expect(await client.resume()).toEqual([]);
    expect(await client.pending(URL_)).toBeUndefined();
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0]![0])).toMatch(/^answer-once: the intent storage is unavailable/);
  });
});
