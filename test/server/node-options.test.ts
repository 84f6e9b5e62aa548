import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from 'answer-once/server/node';
import { afterEach, describe, expect, it, vi } from 'vitest';

const ok = async () => new Response('ok');

describe('serve: options, listen failures and a throwing handler', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('refuses bad options with a TypeError naming them, before listening', async () => {
    await expect(serve(ok, 'fast' as never)).rejects.toThrow(/`serve\(\) options`/);
    await expect(serve(ok, { port: 65_536 })).rejects.toThrow(TypeError);
    await expect(serve(ok, { port: 65_536 })).rejects.toThrow(/`port`/);
    await expect(serve(ok, { onError: 'log' as never })).rejects.toThrow(/`onError`/);
  });

  it('rejects, instead of crashing, when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      await expect(serve(ok, { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('serves on IPv6 loopback with the host bracketed in its url', async () => {
    const server = await serve(ok, { hostname: '::1' });
    try {
      expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect(await (await fetch(server.url)).text()).toBe('ok');
    } finally {
      await server.close();
    }
  });

  it('answers a throwing handler with a bare 500 problem and logs the error by default', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const failure = new Error('db password is hunter2');
    const server = await serve(() => {
      throw failure;
    });
    try {
      const response = await fetch(server.url);
      expect(response.status).toBe(500);
      expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
      const text = await response.text();
      expect(text).not.toContain('hunter2');
      const problem = JSON.parse(text) as { code: string; title: string };
      expect(problem.code).toBe('internal-error');
      expect(problem.title).toMatch(/\w/);
      expect(log).toHaveBeenCalledWith(expect.stringContaining('answer-once'), failure);
    } finally {
      await server.close();
    }
  });
});
