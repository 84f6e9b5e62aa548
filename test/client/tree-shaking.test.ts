/**
 * The entry's modules do no top-level work a bundler must keep: an app pays for the
 * exports it imports, not for their neighbours in the same module.
 */
import { describe, expect, it } from 'vitest';
import { bundled } from '../support/bundled.js';

describe('tree-shaking', () => {
  it('an app that imports one error guard bundles neither the problem table nor the other guards’ lists', async () => {
    const files = await bundled("export { isConnectionError } from './src/index.ts';");
    expect(files).toContain('src/client/errors/guards.ts');
    expect(files).not.toContain('src/core/problems.ts');
  }, 30_000);
});
