/**
 * The entry's modules do no top-level work a bundler must keep: an app pays for the
 * exports it imports, not for their neighbours in the same module. Stopping and streaming
 * are capabilities the app imports: `createClient()` alone ships none of their modules,
 * `createClient({ <capability> })` ships them with it.
 */
import { describe, expect, it } from 'vitest';
import { bundled } from '../support/bundled.js';

const CAPABILITIES = [
  {
    capability: 'stopping',
    modules: 'the stop modules',
    pattern: /src\/client\/(stop\/stop|errors\/stop-not-confirmed-error)\.ts$/,
    shipped: 'the stop',
    files: ['src/client/stop/stop.ts'],
  },
  {
    capability: 'streaming',
    modules: 'the streaming modules or the SSE parser',
    pattern: /src\/client\/stream\/(resumable-body|event-units|intent-fetch|answer-stream)\.ts$|eventsource-parser/,
    shipped: 'the resumable body and the SSE parser',
    files: [
      'src/client/stream/resumable-body.ts',
      'src/client/stream/answer-stream.ts',
      expect.stringContaining('eventsource-parser'),
    ],
  },
];

describe('tree-shaking', () => {
  it.each(CAPABILITIES)(
    'an app that imports createClient alone bundles none of $modules',
    async ({ pattern }) => {
      const files = await bundled("export { createClient } from './src/index.ts';");
      expect(files).toContain('src/client/send/run-intent.ts');
      expect(files.filter((file) => pattern.test(file))).toEqual([]);
    },
    30_000,
  );

  it.each(CAPABILITIES)(
    'an app that hands createClient `$capability` bundles $shipped with it, no chunk to load',
    async ({ capability, files: shipped }) => {
      const files = await bundled(
        `import { createClient, ${capability} } from './src/index.ts'; export const client = createClient({ ${capability} });`,
      );
      expect(files).toEqual(expect.arrayContaining(shipped));
    },
    30_000,
  );

  it('an app that imports one error guard bundles neither the problem table nor the other guards’ lists', async () => {
    const files = await bundled("export { isConnectionError } from './src/index.ts';");
    expect(files).toContain('src/client/errors/guards.ts');
    expect(files).not.toContain('src/core/problems.ts');
  }, 30_000);
});
