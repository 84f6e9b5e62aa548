/**
 * Builds the page (`web/`: React, `@ai-sdk/react`, answer-once) with Vite's JS API, in
 * memory — nothing written to disk — and serves the result.
 */
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';

type Assets = ReadonlyMap<string, { body: Uint8Array<ArrayBuffer> | string; type: string }>;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export async function buildPage(): Promise<Assets> {
  const result = await build({
    root: fileURLToPath(new URL('./web', import.meta.url)),
    configFile: false,
    logLevel: 'warn',
    mode: 'production',
    resolve: { tsconfigPaths: true },
    build: {
      write: false,
      sourcemap: false,
      reportCompressedSize: false,
      // swr (under @ai-sdk/react) starts with 'use client', which means nothing in a plain SPA bundle.
      rollupOptions: { onwarn: (warning, warn) => warning.code !== 'MODULE_LEVEL_DIRECTIVE' && warn(warning) },
    },
  });
  const assets = new Map<string, { body: Uint8Array<ArrayBuffer> | string; type: string }>();
  for (const { output } of (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[]) {
    for (const file of output) {
      const body =
        file.type === 'chunk' ? file.code : typeof file.source === 'string' ? file.source : new Uint8Array(file.source);
      const type = TYPES[file.fileName.slice(file.fileName.lastIndexOf('.'))] ?? 'application/octet-stream';
      assets.set(`/${file.fileName}`, { body, type });
    }
  }
  if (!assets.has('/index.html')) throw new Error('ai-sdk demo: the page build produced no index.html');
  return assets;
}

/** GET/HEAD of a built asset; any path without a dot is the page. */
export function servePage(assets: Assets, request: Request): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405 });
  const { pathname } = new URL(request.url);
  const asset = assets.get(pathname) ?? (pathname.includes('.') ? undefined : assets.get('/index.html'));
  if (!asset) return new Response('Not Found', { status: 404 });
  return new Response(request.method === 'HEAD' ? null : asset.body, {
    headers: { 'Content-Type': asset.type, 'Cache-Control': 'no-cache' },
  });
}
