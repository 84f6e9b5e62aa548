/**
 * Streaming is a capability the app imports: `createClient()` sends JSON and its bundle
 * carries none of the streaming modules; `createClient({ streaming })` streams; a client
 * made without it names the option instead of streaming.
 */

import { createClient } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { bundled } from '../../support/bundled.js';

const STREAMING = /src\/client\/stream\/(resumable-body|event-units|intent-fetch|answer-stream)\.ts$|eventsource-parser/;

describe('streaming', () => {
  it('an app that imports createClient alone bundles none of the streaming modules or the SSE parser', async () => {
    const files = await bundled("export { createClient } from './src/index.ts';");
    expect(files).toContain('src/client/send/run-intent.ts');
    expect(files.filter((file) => STREAMING.test(file))).toEqual([]);
  }, 30_000);

  it('an app that hands createClient `streaming` bundles the resumable body and the SSE parser with it, no chunk to load', async () => {
    const files = await bundled(
      "import { createClient, streaming } from './src/index.ts'; export const client = createClient({ streaming });",
    );
    expect(files).toEqual(
      expect.arrayContaining(['src/client/stream/resumable-body.ts', 'src/client/stream/answer-stream.ts']),
    );
    expect(files.some((file) => file.includes('eventsource-parser'))).toBe(true);
  }, 30_000);

  it('answerOnceTransport bundles client.fetch’s streaming, not client.stream’s parts', async () => {
    const files = await bundled("export { answerOnceTransport } from './src/ai/index.ts';");
    expect(files).toContain('src/client/stream/resumable-body.ts');
    expect(files).not.toContain('src/client/stream/answer-stream.ts');
  }, 30_000);

  it('client.fetch and client.stream of a client made without it reject with a TypeError naming `streaming`', async () => {
    const client = createClient({ fetch: () => Promise.reject(new Error('no request is made')) });
    await expect(client.fetch('http://127.0.0.1:9/api/chat')).rejects.toThrow(
      /client\.fetch.*createClient\(\{ streaming \}\)/,
    );
    await expect(client.stream('http://127.0.0.1:9/api/chat')).rejects.toThrow(TypeError);
  });

  it('createClient rejects a `streaming` that is not the capability, naming the option', () => {
    expect(() => createClient({ streaming: true as never })).toThrow(/`streaming` must be/);
  });
});
