/**
 * Streaming is a capability the app imports: `createClient()` sends JSON (its bundle
 * carries none of the streaming modules: tree-shaking.test.ts); `createClient({ streaming })`
 * streams; a client made without it names the option instead of streaming.
 */

import { createClient } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { bundled } from '../../support/bundled.js';

describe('streaming', () => {
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
