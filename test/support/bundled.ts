/**
 * What an app bundling some code of ours ships: esbuild (minified, ESM, for the browser)
 * over the sources, ky, ulid and `ai` left out, as the size checks measure it.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The source files (and packages) an app bundling `code` ships, ky and ulid left out. */
export async function bundled(code: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: code, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    external: ['ky', 'ulid', 'ai'],
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}
