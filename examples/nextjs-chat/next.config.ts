/**
 * The example builds from this repository's root package: `answer-once/…` resolves to
 * ../../src through the root tsconfig's paths (tsconfig.json here extends it), and the
 * sources import each other as `./x.js` (TypeScript's ESM style), which webpack maps to
 * `./x.ts` with `extensionAlias` — Turbopack cannot yet, hence `next build --webpack`.
 * Nothing is installed here. In your app, `npm install answer-once` and drop all this:
 * the package ships JavaScript.
 */
import path from 'node:path';
import type { NextConfig } from 'next';

const root = path.resolve(import.meta.dirname, '../..');

const config: NextConfig = {
  outputFileTracingRoot: root,
  webpack(webpack) {
    webpack.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'] };
    return webpack;
  },
  // `npx tsc --noEmit -p .` at the root already checks these files (and the library they
  // import): the build need not check them a second time.
  typescript: { ignoreBuildErrors: true },
  // The e2e suite builds into a folder of its own, so a running `npm run demo:next` is left alone.
  distDir: process.env.NEXT_DIST_DIR ?? '.next',
};

export default config;
